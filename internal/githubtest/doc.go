// Package githubtest is a fake GitHub for tests: an httptest server that
// speaks GitHub's real wire format for the REST and GraphQL calls baton makes,
// keeps issues, comments, labels and pull requests in memory, and fails on
// demand.
//
// # Starting it
//
//	srv := githubtest.New(t)                       // closed by t.Cleanup
//	n := srv.AddIssue(githubtest.Issue{Title: "Add export", Labels: []string{"ai/impl"}})
//	cmd.Env = append(os.Environ(), srv.Env()...)   // GITHUB_API_URL, GITHUB_GRAPHQL_URL, GH_TOKEN, GH_REPO
//	// … run baton, or build a client with github.Resolve(ctx, github.Env{Getenv: srv.Getenv}) …
//	comments := srv.Comments(n)                    // what baton posted
//
// The repository is srv.Owner/srv.Repo ("acme/widgets"); requests for any
// other repository get GitHub's 404. Requests must carry
// "Authorization: Bearer <srv.Token>" (or "token <srv.Token>"), else 401 with
// {"message":"Bad credentials",…}. srv.Token looks like a real token, so
// redaction of it can be checked.
//
// # What it serves
//
// The routes are the Route constants, written as GitHub documents them:
//
//	GET    /repos/{owner}/{repo}/issues                    list (state, labels, sort, direction, per_page, page)
//	POST   /repos/{owner}/{repo}/issues                    create
//	GET    /repos/{owner}/{repo}/issues/{number}           one issue (pull requests too, as GitHub does)
//	GET    /repos/{owner}/{repo}/issues/{number}/comments  list (per_page, page), oldest first
//	POST   /repos/{owner}/{repo}/issues/{number}/comments  create (422 past 65,536 characters)
//	GET    /repos/{owner}/{repo}/issues/comments/{id}      one comment
//	DELETE /repos/{owner}/{repo}/issues/comments/{id}      delete (204)
//	POST   /repos/{owner}/{repo}/issues/{number}/labels    add; unknown labels are created (color ededed), as GitHub does
//	DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}  remove (404 "Label does not exist" when absent)
//	GET    /repos/{owner}/{repo}/labels                    list (per_page, page)
//	GET    /repos/{owner}/{repo}/labels/{name}             one label
//	POST   /repos/{owner}/{repo}/labels                    create (422 already_exists)
//	GET    /repos/{owner}/{repo}/pulls                     list (state, head "owner:branch", base, per_page, page)
//	POST   /repos/{owner}/{repo}/pulls                     create (422 when one is already open for the head)
//	POST   /graphql                                        closedByPullRequestsReferences of an issue
//	GET    /user                                           the token's user, srv.Login (403 for a "…[bot]" Login)
//
// Issues and pull requests share one sequence of numbers, and the issue list
// includes pull requests (with a "pull_request" key), as on GitHub. Lists are
// paginated with per_page (default 30, at most 100) and page, and answer with
// a Link header holding rel="next", rel="last", rel="first" and rel="prev"
// where they apply. Every answer carries X-RateLimit-Limit, -Remaining,
// -Reset, -Used and -Resource. Errors have GitHub's JSON body:
// {"message":…,"documentation_url":…,"status":"404"} (plus "errors" for 422).
//
// A pull request is linked to the issues its body closes ("Closes #12",
// "fixes #3", "Resolves #7", any case), to the issues in
// PullRequest.Closes when seeded, and through LinkPullRequest; the GraphQL
// endpoint answers closedByPullRequestsReferences for an issue from those
// links. It reads the query loosely: owner, name (or repo) and number (or
// issue) from the variables, or from literal arguments in the query; closed
// and merged pull requests are included when the query says
// includeClosedPrs: true.
//
// # Seeding and inspecting
//
// AddIssue, AddComment, AddLabel and AddPullRequest put state in place (an
// issue's author association, a comment written by another tool, a pull
// request already open); LinkPullRequest and SetIssueState change it.
// Issue, Issues, Comments, Labels and PullRequests return copies of the
// current state; Requests returns every request the server received, in
// order, with its Route, and Calls counts them, so a test can check what was
// sent and how often.
//
// # Faults
//
// Fail makes the next n requests to a route (or to every route, RouteAny)
// fail in a chosen way; n < 0 means until ClearFaults:
//
//	srv.Fail(githubtest.RouteCreateComment, 2, githubtest.ServerError(502))         // two 502s, then normal
//	srv.Fail(githubtest.RouteListComments, 1, githubtest.TooManyRequests(time.Second)) // 429 with Retry-After: 1
//	srv.Fail(githubtest.RouteAny, -1, githubtest.BadCredentials())                  // 401 on everything
//	srv.Fail(githubtest.RouteListComments, 1, githubtest.MalformedBody().After(1))  // page 2 is garbage
//
// The faults on offer: BadCredentials (401), Forbidden (403 without rate-limit
// headers), RateLimited (403 with X-RateLimit-Remaining: 0 and
// X-RateLimit-Reset), SecondaryRateLimit (403 with Retry-After and GitHub's
// "secondary rate limit" message), TooManyRequests (429 with Retry-After),
// ServerError (500, 502, …), Slow (answer after a delay, or never if the
// client gives up first), ResetConnection (the TCP connection is reset
// without an answer) and MalformedBody (200 with a truncated JSON document).
// A Fault literal can combine a status, a message, headers and a delay.
//
// A connection reset on a reused keep-alive connection may be retried once by
// Go's own transport for GET requests, so such a fault can be consumed by a
// call the client never sees; count on the outcome, or fail with n < 0.
package githubtest
