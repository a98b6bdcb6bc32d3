package worker

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
)

// Category is why a run ended without a pull request. It is written as is
// into failure comments and run records, for people and scripts.
type Category string

// The categories of failure.
const (
	// CLITimeout: the first run or the resumed session reached the deadline.
	CLITimeout Category = "CLI_TIMEOUT"
	// CLIExecutionError: the agent could not be started, or crashed.
	CLIExecutionError Category = "CLI_EXECUTION_ERROR"
	// CLINonZeroExit: the agent exited with a non-zero status.
	CLINonZeroExit Category = "CLI_NON_ZERO_EXIT"
	// CLIResultError: the agent's JSON result says is_error.
	CLIResultError Category = "CLI_RESULT_ERROR"
	// NoChangeRequired: the resumed session printed the no-change marker.
	// A diagnosis only: the issue is still labelled failed for a person to
	// check.
	NoChangeRequired Category = "IMPL_NO_CHANGE_REQUIRED"
	// NoLinkedPR: the agent ended normally but no pull request is linked.
	NoLinkedPR Category = "IMPL_NO_LINKED_PR"
	// GitFetch: git fetch of the clone failed.
	GitFetch Category = "GIT_FETCH"
	// WorktreeCreation: the run's worktree could not be made.
	WorktreeCreation Category = "WORKTREE_CREATION"
	// PromptGeneration: the prompt could not be made from its template.
	PromptGeneration Category = "PROMPT_GENERATION"
	// JobTimeout: the job ran past its time limit on its last attempt.
	JobTimeout Category = "JOB_TIMEOUT"
	// HostLost: the host running the job's last attempt stopped answering.
	HostLost Category = "HOST_LOST"
)

// summary is the one-line explanation of each category.
func (c Category) summary() i18n.Msg {
	switch c {
	case CLITimeout:
		return i18n.Msg{JA: "エージェントが制限時間内に終わりませんでした。", EN: "The agent did not finish within the time budget."}
	case CLIExecutionError:
		return i18n.Msg{JA: "エージェントを起動できなかったか、異常終了しました。", EN: "The agent could not be started, or it crashed."}
	case CLINonZeroExit:
		return i18n.Msg{JA: "エージェントが 0 以外の終了コードで終了しました。", EN: "The agent exited with a non-zero status."}
	case CLIResultError:
		return i18n.Msg{JA: "エージェントの結果がエラーを報告しました（is_error）。", EN: "The agent's result reported an error (is_error)."}
	case NoChangeRequired:
		return i18n.Msg{JA: "再開したセッションが「変更不要」と判断しました。本当に変更が不要か確認してください。", EN: "The resumed session concluded that nothing needs changing. Please check that this is right."}
	case NoLinkedPR:
		return i18n.Msg{JA: "エージェントは終了しましたが、この Issue に紐づくプルリクエストがありません。", EN: "The agent finished, but no pull request is linked to this issue."}
	case GitFetch:
		return i18n.Msg{JA: "git fetch に失敗しました。", EN: "git fetch failed."}
	case WorktreeCreation:
		return i18n.Msg{JA: "作業用の worktree を作れませんでした。", EN: "The run's worktree could not be created."}
	case PromptGeneration:
		return i18n.Msg{JA: "プロンプトを作れませんでした（テンプレートを確認してください）。", EN: "The prompt could not be made (check the template)."}
	case JobTimeout:
		return i18n.Msg{JA: "ジョブが最後の試行でも制限時間を超えました。トリガーラベルを付け直すまで再実行しません。", EN: "The job ran past its time limit on its last attempt; it is not run again until the trigger label is set again."}
	case HostLost:
		return i18n.Msg{JA: "最後の試行を実行していたホストが応答しなくなりました。トリガーラベルを付け直すまで再実行しません。", EN: "The host running the last attempt stopped answering; it is not run again until the trigger label is set again."}
	}
	return i18n.Msg{JA: string(c), EN: string(c)}
}

// Markers baton leaves in the comments it writes.
const (
	// markerWorker ends every comment the worker posts.
	markerWorker = "<!-- baton:worker -->"
	// claimPrefix starts a claim comment; claimKeyPrefix begins the
	// claims baton writes, whose key is a random nonce of the claim alone:
	// it says nothing of the run, its branch or its time.
	claimPrefix    = "<!-- baton:claim "
	claimKeyPrefix = claimPrefix + "id="
)

// MaxCommentChars is the most characters a worker comment has, under
// GitHub's limit of 65,536.
const MaxCommentChars = 64000

// Output ends shown in a failure comment, in characters.
const (
	commentStderr = 4000
	commentStdout = 2000
	commentError  = 2000
)

var (
	msgFailHeading   = i18n.Msg{JA: "## baton worker: プルリクエストを作れませんでした", EN: "## baton worker: no pull request"}
	msgFailCategory  = i18n.Msg{JA: "- **カテゴリ:** `%s`", EN: "- **Category:** `%s`"}
	msgFailSummary   = i18n.Msg{JA: "- **概要:** %s", EN: "- **Summary:** %s"}
	msgFailExit      = i18n.Msg{JA: "- **終了コード:** %s", EN: "- **Exit code:** %s"}
	msgFailTimeout   = i18n.Msg{JA: "- **制限時間:** %d 分", EN: "- **Timeout:** %d minutes"}
	msgFailError     = i18n.Msg{JA: "- **エラー:** %s", EN: "- **Error:** %s"}
	msgFailWorktree  = i18n.Msg{JA: "- 作業ツリーはワーカーのマシンに残してあります（ブランチ `%s`）。", EN: "- The worktree was kept on the worker's machine (branch `%s`)."}
	msgFailRelabel   = i18n.Msg{JA: "確認のうえ、もう一度実行するにはラベル `%s` を付け直してください。", EN: "To run it again after a look, put the `%s` label back."}
	msgPartial       = i18n.Msg{JA: "（タイムアウト前の途中まで）", EN: " (partial, before timeout)"}
	msgNotStarted    = i18n.Msg{JA: "なし（起動していません）", EN: "none (not started)"}
	msgStopped       = i18n.Msg{JA: "なし（シグナルで停止）", EN: "none (stopped by a signal)"}
	msgResumedExit   = i18n.Msg{JA: "%s（初回の実行: %s）", EN: "%s (first run: %s)"}
	msgFallbackNote  = i18n.Msg{JA: "## baton worker: ドラフトのプルリクエストを作りました\n\nエージェントはプルリクエストを作らずに終了しましたが、ブランチ `%s` にコミットが残っていたため、それを push してドラフト %s を作りました。内容を確認してください。", EN: "## baton worker: draft pull request opened\n\nThe agent ended without opening a pull request, but its branch `%s` had commits, so baton pushed them and opened the draft %s. Please review it."}
	msgFallbackTitle = i18n.Msg{JA: "【下書き】%s", EN: "Draft: %s"}
	msgFallbackBody  = i18n.Msg{JA: "Closes #%d\n\nエージェントがプルリクエストを作らずに終了したため、baton worker がブランチのコミットからこのドラフトを作りました。エージェントの最後の回答:\n\n%s", EN: "Closes #%d\n\nThe agent ended without opening a pull request, so baton worker opened this draft from the branch's commits. The agent's last answer:\n\n%s"}
	msgFailNoResume  = i18n.Msg{JA: "- **再開:** しませんでした。残り時間 %s が min_resume_minutes（%d 分）未満でした。", EN: "- **Resume:** skipped: %s of the budget left, less than min_resume_minutes (%d)."}
	msgFailDraft     = i18n.Msg{JA: "- **ドラフト:** エージェントが残したコミットから %s を作りました。完了とは扱っていません。確認してください。", EN: "- **Draft:** baton opened %s from the commits the agent left; it does not count as done. Please review it."}
	msgFailHeldBack  = i18n.Msg{JA: "- **保留したチェックポイント:** 次のファイルの変更に秘密情報が見つかったため、コミットも push もしていません（ワーカーのマシンにだけ残っています）: %s", EN: "- **Checkpoint held back:** the changes of these files hold a secret, so baton neither committed nor pushed them (they stay on the worker's machine only): %s"}
	msgFailSkipped   = i18n.Msg{JA: "- **チェックポイントから除外:** %d MiB を超えるファイル: %s", EN: "- **Left out of checkpoints:** files over %d MiB: %s"}
	msgFailRescue    = i18n.Msg{JA: "- **引き継ぎ:** %s", EN: "- **Rescue:** %s"}
	msgDoneHeading   = i18n.Msg{JA: "## baton worker: プルリクエストができました", EN: "## baton worker: pull request opened"}
	msgDonePR        = i18n.Msg{JA: "- **プルリクエスト:** %s", EN: "- **Pull request:** %s"}
	msgDoneDuration  = i18n.Msg{JA: "- **所要時間:** %s", EN: "- **Duration:** %s"}
	msgDoneHost      = i18n.Msg{JA: "- **ホスト:** %s", EN: "- **Host:** %s"}
	msgDoneResumed   = i18n.Msg{JA: "- **再開:** セッションを 1 回再開しました", EN: "- **Resumed:** the session was resumed once"}
	msgDoneRescued   = i18n.Msg{JA: "- **引き継ぎ:** 応答しなくなったホスト %s の実行を引き継ぎました（%s）", EN: "- **Rescued:** continued the run of host %s, which stopped answering (%s)"}
	msgDoneFinal     = i18n.Msg{JA: "エージェントの最後のメッセージ", EN: "The agent's final message"}
	msgClaim         = i18n.Msg{JA: "baton worker（%s）がこの Issue に取り組んでいます。", EN: "baton worker (%s) is working on this issue."}
)

// cleaner makes text safe to record or post: secrets redacted and the home
// folder's path replaced by ~.
type cleaner struct{ home string }

func (c cleaner) clean(s string) string {
	s = redact.Redact(s)
	if c.home != "" && c.home != "/" {
		s = strings.ReplaceAll(s, strings.TrimRight(c.home, "/"), "~")
	}
	return s
}

// backtickRun matches three or more backticks in a row.
var backtickRun = regexp.MustCompile("`{3,}")

// neutralizeFences breaks every run of three or more backticks with
// zero-width spaces, so text from the agent can neither close the fence it is
// shown in nor open one that swallows the rest of the comment.
func neutralizeFences(s string) string {
	return backtickRun.ReplaceAllStringFunc(s, func(run string) string {
		return strings.Join(strings.Split(run, ""), "\u200b")
	})
}

// resumeSkip says why a session was not resumed: too little budget left.
type resumeSkip struct {
	Left       time.Duration
	MinMinutes int
}

// note says it in the run's record.
func (s *resumeSkip) note() string {
	return fmt.Sprintf("not resumed: %s left, less than min_resume_minutes (%d)", s.Left.Round(time.Second), s.MinMinutes)
}

// commentFinal is the most characters of the agent's final message in a
// success comment.
const commentFinal = 4000

// success is what a success comment reports.
type success struct {
	// Lead is the comment's heading (and, for a draft, what baton did).
	Lead        string
	PullRequest string
	Duration    time.Duration
	Host        string
	Resumed     bool
	RescuedFrom string
	RescueNote  string
	// Attempts are the agent's runs: each one's final message is shown,
	// the first run's and the resumed session's when it was resumed.
	Attempts []Attempt
}

// successComment renders the comment posted on an issue that got its pull
// request: the link, how long it took, on which host, whether the session
// was resumed or the run rescued, and the agent's final message of each run
// (its end, redacted, fences broken), the first run's before the resumed
// session's.
func successComment(lang i18n.Lang, c cleaner, s success) string {
	var b strings.Builder
	b.WriteString(s.Lead + "\n\n")
	b.WriteString(msgDonePR.Format(lang, s.PullRequest) + "\n")
	b.WriteString(msgDoneDuration.Format(lang, s.Duration.Round(time.Second)) + "\n")
	b.WriteString(msgDoneHost.Format(lang, c.clean(s.Host)) + "\n")
	if s.Resumed {
		b.WriteString(msgDoneResumed.In(lang) + "\n")
	}
	if s.RescuedFrom != "" {
		b.WriteString(msgDoneRescued.Format(lang, c.clean(s.RescuedFrom), textcut.OneLine(c.clean(s.RescueNote))) + "\n")
	}
	b.WriteString(details(msgDoneFinal.In(lang), joinOutputs(s.Attempts, c, finalMessage, commentFinal)))
	return capComment(b.String())
}

// failure is what a failure comment reports.
type failure struct {
	Category       Category
	Detail         string
	TimeoutMinutes int
	Error          string
	Attempts       []Attempt
	Branch         string
	WorktreeKept   bool
	Trigger        string
	// ResumeSkipped: the session was not resumed for lack of budget.
	ResumeSkipped *resumeSkip
	// Rescue says how a rescued run started.
	Rescue string
	// Draft is the draft pull request baton opened from what the agent
	// left, when it did.
	Draft string
	// HeldBack names the files a checkpoint did not push for a secret
	// found in them; SkippedFiles those it left out for their size.
	HeldBack     []string
	SkippedFiles []string
}

// failureComment renders the comment posted on an issue the worker gave up
// on: heading, category, summary, exit code, timeout, error, then the ends of
// the agent's stderr and stdout (both runs' when the session was resumed).
// Everything that came from outside is redacted and has its backtick runs
// broken; the comment has at most MaxCommentChars characters and ends with
// the worker's marker.
func failureComment(lang i18n.Lang, c cleaner, f failure) string {
	var b strings.Builder
	b.WriteString(msgFailHeading.In(lang) + "\n\n")
	b.WriteString(msgFailCategory.Format(lang, f.Category) + "\n")
	summary := f.Category.summary().In(lang)
	if f.Detail != "" {
		summary += " " + textcut.OneLine(c.clean(f.Detail))
	}
	b.WriteString(msgFailSummary.Format(lang, neutralizeFences(summary)) + "\n")
	b.WriteString(msgFailExit.Format(lang, exitText(lang, f.Attempts)) + "\n")
	b.WriteString(msgFailTimeout.Format(lang, f.TimeoutMinutes) + "\n")
	if f.Error != "" {
		b.WriteString(msgFailError.Format(lang, neutralizeFences(textcut.OneLine(lastChars(c.clean(f.Error), commentError)))) + "\n")
	}
	if f.ResumeSkipped != nil {
		b.WriteString(msgFailNoResume.Format(lang, f.ResumeSkipped.Left.Round(time.Second), f.ResumeSkipped.MinMinutes) + "\n")
	}
	if f.Rescue != "" {
		b.WriteString(msgFailRescue.Format(lang, neutralizeFences(textcut.OneLine(c.clean(f.Rescue)))) + "\n")
	}
	if f.Draft != "" {
		b.WriteString(msgFailDraft.Format(lang, f.Draft) + "\n")
	}
	if len(f.HeldBack) > 0 {
		b.WriteString(msgFailHeldBack.Format(lang, fileList(c, f.HeldBack)) + "\n")
	}
	if len(f.SkippedFiles) > 0 {
		b.WriteString(msgFailSkipped.Format(lang, maxCheckpointFile>>20, fileList(c, f.SkippedFiles)) + "\n")
	}
	if f.WorktreeKept {
		b.WriteString(msgFailWorktree.Format(lang, f.Branch) + "\n")
	}
	partial := ""
	for _, a := range f.Attempts {
		if a.TimedOut {
			partial = msgPartial.In(lang)
		}
	}
	if len(f.Attempts) > 0 {
		b.WriteString(details("stderr"+partial, joinOutputs(f.Attempts, c, func(a Attempt) string { return a.Stderr }, commentStderr)))
		b.WriteString(details("stdout"+partial, joinOutputs(f.Attempts, c, func(a Attempt) string { return a.Stdout }, commentStdout)))
	}
	if f.Trigger != "" {
		b.WriteString("\n" + msgFailRelabel.Format(lang, f.Trigger) + "\n")
	}
	return capComment(b.String())
}

// fileList renders file names for a comment line, at most ten.
func fileList(c cleaner, files []string) string {
	const most = 10
	var parts []string
	for i, f := range files {
		if i == most {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, "`"+strings.ReplaceAll(textcut.OneLine(c.clean(f)), "`", "'")+"`")
	}
	return strings.Join(parts, ", ")
}

// exitText describes how the agent's runs ended.
func exitText(lang i18n.Lang, as []Attempt) string {
	one := func(a Attempt) string {
		switch {
		case a.PID == 0:
			return msgNotStarted.In(lang)
		case a.ExitCode < 0:
			return msgStopped.In(lang)
		}
		return strconv.Itoa(a.ExitCode)
	}
	switch len(as) {
	case 0:
		return msgNotStarted.In(lang)
	case 1:
		return one(as[0])
	}
	return msgResumedExit.Format(lang, one(as[len(as)-1]), one(as[0]))
}

// joinOutputs joins the ends of each attempt's stream, the resumed session
// after a separator line.
func joinOutputs(as []Attempt, c cleaner, stream func(Attempt) string, n int) string {
	parts := make([]string, 0, len(as))
	for _, a := range as {
		parts = append(parts, neutralizeFences(lastChars(c.clean(stream(a)), n)))
	}
	return strings.Join(parts, "\n--- resumed session ---\n")
}

// finalMessage is a run's final answer, when it printed one.
func finalMessage(a Attempt) string {
	if a.Result == nil {
		return ""
	}
	return strings.TrimSpace(a.Result.Result)
}

// details renders a collapsed block holding text in a fence.
func details(summary, text string) string {
	if strings.TrimSpace(text) == "" {
		text = "(empty)"
	}
	return "\n<details><summary>" + summary + "</summary>\n\n```text\n" + strings.TrimRight(text, "\n") + "\n```\n\n</details>\n"
}

// capComment keeps s within MaxCommentChars, cutting from the middle, and
// ends it with the worker's marker.
func capComment(s string) string {
	const cut = "\n\n[…]\n\n"
	limit := MaxCommentChars - utf8.RuneCountInString(markerWorker) - 1
	if utf8.RuneCountInString(s) > limit {
		keep := limit - utf8.RuneCountInString(cut)
		head := firstChars(s, keep/2)
		s = head + cut + lastChars(s, keep-keep/2)
	}
	return strings.TrimRight(s, "\n") + "\n" + markerWorker
}

// firstChars returns the first n characters of s.
func firstChars(s string, n int) string {
	i := 0
	for count := 0; count < n && i < len(s); count++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// claimComment is the comment a worker posts to claim an issue. key tells
// the claim apart when its post is retried (a random nonce, see
// newClaimKey); until is when the claim lapses if its run never cleans it
// up (the run's longest possible end).
func claimComment(lang i18n.Lang, key, host string, until time.Time) string {
	return fmt.Sprintf("%s%s until=%s -->\n%s", claimKeyPrefix, key, until.UTC().Format(time.RFC3339), msgClaim.Format(lang, host))
}

// newClaimKey is a claim's key: random, so that nothing in the public
// claim leads to the run's branch.
func newClaimKey() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// claimPattern reads a claim comment's key (a run id in the claims of
// earlier versions) and expiry.
var claimPattern = regexp.MustCompile(`<!-- baton:claim (?:id|run)=([A-Za-z0-9._-]+)(?: until=(\S+))? -->`)

// parseClaim returns the key of a claim comment and when it lapses (zero
// when it says nothing).
func parseClaim(body string) (key string, until time.Time, ok bool) {
	m := claimPattern.FindStringSubmatch(body)
	if m == nil || !strings.HasPrefix(strings.TrimSpace(body), claimPrefix) {
		return "", time.Time{}, false
	}
	if m[2] != "" {
		until, _ = time.Parse(time.RFC3339, m[2])
	}
	return m[1], until, true
}
