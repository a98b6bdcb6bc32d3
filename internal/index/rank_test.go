package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A ranking fixture: for each topic one session decides, and three louder,
// later sessions only ask about it (and search for it), paste logs full of
// its words, or link to it. Some decisions were approved (the decision log
// names the deciding session), some were not.
type rankTopic struct {
	slug     string
	query    string // words a person searches the decision with
	question string // the same, asked in plain words
	decide   string // the prompt that decides
	confirm  string // the agent's answer
	approved string // the decision log's summary; empty when not approved
	logLine  string // a log line full of the topic's words (%d: attempt)
}

var rankTopics = []rankTopic{
	{"queue-retry-backoff", "queue retry backoff", "what did we decide about the queue retries?",
		"Let's settle the queue retry policy: exponential backoff from 1s, capped at 5 minutes, at most 8 attempts.",
		"Done: the queue worker now retries with exponential backoff capped at 5 minutes.",
		"Queue retries use exponential backoff capped at 5 minutes, 8 attempts", "ERROR queue retry %d failed, backoff 2s, queue=emails retry scheduled"},
	{"sqlite-wal-checkpoint", "sqlite WAL checkpoint", "how did we decide to handle sqlite checkpoints",
		"Decision: keep SQLite in WAL mode and run a passive checkpoint after each batch, never a truncate checkpoint while readers are open.",
		"WAL mode stays; the writer runs a passive checkpoint after every batch.",
		"SQLite stays in WAL mode with a passive checkpoint after each batch", "WARN sqlite wal checkpoint %d busy, wal size 40MB, checkpoint retried"},
	{"csv-export-streaming", "csv export streaming", "what was the call on exporting csv files?",
		"We'll use a streaming CSV export: rows are written as they are read, no buffering of the whole table.",
		"The exporter now streams CSV rows straight to the response.",
		"CSV export streams rows instead of buffering the table", "INFO csv export %d rows streaming, export csv chunk flushed"},
	{"token-rotation", "token rotation refresh", "did we agree on how tokens get rotated",
		"From now on refresh tokens are rotated on every use and the old token is revoked at once.",
		"Token rotation is in: each refresh issues a new refresh token and revokes the previous one.",
		"Refresh tokens rotate on every use; the old token is revoked", "DEBUG token rotation %d: refresh token rotated, refresh ok"},
	{"log-retention", "log retention days", "how long do we keep the logs",
		"The rule is: application logs have a retention of 30 days, audit logs 400 days.",
		"Retention set to 30 days for application logs and 400 days for audit logs.",
		"Log retention: 30 days for application logs, 400 days for audit logs", "INFO log retention sweep %d: deleted logs older than retention days=30"},
	{"feature-flag-prefix", "feature flag prefix", "what naming did we pick for feature flags",
		"Let's go with a team prefix for every feature flag name, like billing.new-invoices.",
		"Renamed the feature flags to use the team prefix.",
		"Feature flag names start with the owning team's prefix", "WARN feature flag %d unknown prefix, flag prefix missing"},
	{"api-pagination-cursor", "pagination cursor API", "which pagination style did we choose for the API",
		"We decided on cursor pagination for the public API: opaque cursors, no page numbers.",
		"The API list endpoints now take an opaque cursor.",
		"", "INFO api pagination cursor %d decoded, cursor page size 50, api list"},
	{"cache-ttl", "cache ttl invalidation", "what did we decide for cache expiry",
		"Decision: cache entries get a 10 minute TTL and explicit invalidation on writes.",
		"Added the 10 minute TTL and invalidation on every write path.",
		"", "DEBUG cache ttl %d expired, cache invalidation queued, ttl=600"},
	{"go-toolchain-pin", "go toolchain version", "which Go toolchain do we pin",
		"We'll pin the Go toolchain version in go.mod with a toolchain line and update it monthly.",
		"go.mod now carries the toolchain line with the pinned version.",
		"", "go: downloading toolchain version go1.26.%d, toolchain switch"},
	{"error-wrapping", "error wrapping sentinel", "how should errors be wrapped",
		"Agreed on this: errors are wrapped with %w and callers test sentinel errors with errors.Is, no string matching.",
		"Converted the handlers to wrap errors and compare sentinel values with errors.Is.",
		"", "panic: error wrapping %d: sentinel error not wrapped"},
	{"retry-limit-ja", "再試行 上限", "再試行の上限はどう決めた？",
		"ジョブの再試行は上限 5 回にします。5 回失敗したら通知して止める。",
		"再試行の上限を 5 回にしました。",
		"ジョブの再試行は上限 5 回、超えたら通知して停止", "ERROR 再試行 %d 回目 失敗 上限 接近 再試行 待機"},
	{"config-yaml-ja", "設定ファイル YAML", "設定ファイルの形式について何を決めた？",
		"設定ファイルは YAML に統一することにした。TOML と JSON は読まない。",
		"設定ファイルの読み込みを YAML だけにしました。",
		"設定ファイルは YAML に統一", "WARN 設定ファイル %d YAML 解析 警告 設定ファイル 再読込"},
	{"slack-thread-ja", "通知 Slack スレッド", "Slack 通知はどうすることにした？",
		"通知は Slack のスレッドにまとめる方針は変えない、チャンネル直下には投稿しない。決定。",
		"通知を Slack スレッドへの返信にまとめました。",
		"Slack 通知はスレッドにまとめ、チャンネル直下に投稿しない", "INFO Slack 通知 %d スレッド 送信 通知 スレッド 完了"},
	{"audit-log-ja", "監査ログ 保存期間", "監査ログはいつまで残すんだっけ？",
		"監査ログの保存期間は 400 日で確定。アプリのログは 30 日。",
		"監査ログの保存期間を 400 日に設定しました。",
		"監査ログの保存期間は 400 日", "INFO 監査ログ %d 保存期間 超過分 削除 監査ログ 整理"},
	{"api-key-ja", "ＡＰＩキー 暗号化", "APIキーの保管方法は？",
		"APIキーは KMS で暗号化して保存することにします。平文では置かない。",
		"APIキーを KMS 暗号化で保存するようにしました。",
		"", "WARN APIキー %d 暗号化 鍵 取得 APIキー 再暗号化"},
	{"backup-generations-ja", "バックアップ 世代", "バックアップは何世代残す？",
		"ﾊﾞｯｸｱｯﾌﾟは 7 世代まで保持する方針は決定、古いものから消す。",
		"ﾊﾞｯｸｱｯﾌﾟを 7 世代に制限しました。",
		"", "INFO バックアップ %d 世代 ローテーション バックアップ 世代 削除"},
}

type rankCorpus struct {
	f        *fixture
	lines    map[string][]string // session → transcript lines
	at       time.Time
	decision []string
	deciders map[string]string // slug → deciding session
}

func (c *rankCorpus) msg(session, role string, content any) {
	c.at = c.at.Add(time.Minute)
	b, _ := json.Marshal(map[string]any{"type": role, "uuid": fmt.Sprintf("u%d", len(c.lines[session])), "sessionId": session,
		"timestamp": c.at.Format(time.RFC3339Nano), "message": map[string]any{"role": role, "content": content}})
	c.lines[session] = append(c.lines[session], string(b))
}

func (c *rankCorpus) say(session, role, text string) {
	c.msg(session, role, []any{map[string]any{"type": "text", "text": text}})
}

func (c *rankCorpus) bash(session, command, output string) {
	id := fmt.Sprintf("toolu_%d", len(c.lines[session]))
	c.msg(session, "assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": command}}})
	c.msg(session, "user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": output}})
}

func newRankCorpus(t *testing.T) *rankCorpus {
	t.Helper()
	c := &rankCorpus{f: newFixture(t), lines: map[string][]string{}, at: t0, deciders: map[string]string{}}
	for i, tp := range rankTopics {
		decider := fmt.Sprintf("decide-%02d", i)
		c.deciders[tp.slug] = decider
		c.say(decider, "user", "Morning. Before the release I want to close open questions.")
		c.say(decider, "assistant", "Sure, which one first?")
		c.say(decider, "user", tp.decide)
		c.say(decider, "assistant", tp.confirm)
		if tp.approved != "" {
			b, _ := json.Marshal(map[string]any{"date": "2026-09-01", "ts": c.at, "slug": tp.slug, "summary": tp.approved, "issue": 12, "session": decider})
			c.decision = append(c.decision, string(b))
		}
	}
	// The louder sessions come later.
	for i, tp := range rankTopics {
		asker, paster, linker := fmt.Sprintf("ask-%02d", i), fmt.Sprintf("paste-%02d", i), fmt.Sprintf("link-%02d", i)
		c.say(asker, "user", "Quick question about the "+tp.query+": is that settled? I keep seeing "+tp.query+" come up.")
		c.say(asker, "assistant", "I do not remember; let me search the code for "+tp.query+".")
		var grep strings.Builder
		for n := range 8 {
			fmt.Fprintf(&grep, "internal/x/file%d.go:%d: // TODO %s\n", n, 10*n, tp.query)
		}
		c.bash(asker, "grep -rn '"+tp.query+"' .", grep.String())
		c.say(asker, "user", "Still unsure about "+tp.query+". Can you check again?")

		var log strings.Builder
		for n := range 20 {
			fmt.Fprintf(&log, "2026-09-03T10:00:%02d "+tp.logLine+"\n", n, n)
		}
		c.say(paster, "user", "It broke again in production, here is the log:\n```\n"+log.String()+"```\nWhat is going on?")
		c.bash(paster, "tail -n 200 /var/log/app.log", log.String())
		c.say(paster, "assistant", "The log shows the same failure repeating; I will look at the code.")

		c.say(linker, "user", "See the earlier thread on "+tp.query+" in issue #12; today please update the docs for "+tp.query+" and the "+tp.query+" tests.")
		c.say(linker, "assistant", "Updating the docs and tests that mention "+tp.query+".")
	}
	for s, lines := range c.lines {
		if err := os.WriteFile(filepath.Join(c.f.transcripts, s+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := c.f.state.Context()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "decisions.jsonl"), []byte(strings.Join(c.decision, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// sessionRank is the place (1-based) of the first hit of session s, 0 when
// none.
func sessionRank(r *Results, s string) int {
	for i, h := range r.Hits {
		if h.Session == s {
			return i + 1
		}
	}
	return 0
}

func TestRankDecidingSessionFirst(t *testing.T) {
	c := newRankCorpus(t)
	ix := c.f.open(t)
	first := 0
	for _, tp := range rankTopics {
		r := search(t, ix, Query{Text: tp.query, Limit: 10})
		got := sessionRank(r, c.deciders[tp.slug])
		if got == 1 {
			first++
			continue
		}
		var top []string
		for _, h := range r.Hits[:min(3, len(r.Hits))] {
			top = append(top, h.Session+" "+string(h.Kind)+" "+h.Marked("«", "»"))
		}
		t.Logf("%q: deciding session at %d; top: %s", tp.query, got, strings.Join(top, " | "))
	}
	t.Logf("deciding session first for %d of %d decision queries", first, len(rankTopics))
	if first < 15 {
		t.Errorf("deciding session first for %d of %d queries; want at least 15", first, len(rankTopics))
	}
}

func TestRankQuestionsRelaxed(t *testing.T) {
	c := newRankCorpus(t)
	ix := c.f.open(t)
	for _, tp := range rankTopics {
		t.Run(tp.question, func(t *testing.T) {
			r := search(t, ix, Query{Text: tp.question, Limit: 5})
			if !r.Relaxed {
				t.Errorf("not relaxed (%d hits); want the relaxed tier", r.Total)
			}
			if got := sessionRank(r, c.deciders[tp.slug]); got == 0 {
				var top []string
				for _, h := range r.Hits {
					top = append(top, h.Session+" "+h.Marked("«", "»"))
				}
				t.Errorf("deciding session not in the top 5 (words %q): %s", r.Words, strings.Join(top, " | "))
			}
		})
	}
}

// A rebuild loads FTS5 differently from a catch-up (read ahead of the
// writer, merged once at the end): it must find the same documents with the
// same scores, and leave FTS5's merge settings as they were.
func TestRebuildMatchesCatchUp(t *testing.T) {
	c := newRankCorpus(t)
	// One long transcript, read in many batches.
	for n := range 3 * readBatch * readAhead {
		c.say("long", []string{"user", "assistant"}[n%2], fmt.Sprintf("step %d of the long session: queue retry tuning, attempt %d", n, n))
	}
	if err := os.WriteFile(filepath.Join(c.f.transcripts, "long.jsonl"), []byte(strings.Join(c.lines["long"], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := c.f.open(t)
	queries := []string{"queue retry", "step", "再試行", "設定ファイル"}
	for _, tp := range rankTopics {
		queries = append(queries, tp.query, tp.question)
	}
	results := func() []string {
		var out []string
		for _, q := range queries {
			r := search(t, ix, Query{Text: q, Limit: 50})
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d", q, r.Total)
			for _, h := range r.Hits {
				fmt.Fprintf(&b, " %s@%.9g", h.Ref, h.Score)
			}
			out = append(out, b.String())
		}
		return out
	}
	before := results()
	if err := ix.Rebuild(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	after := results()
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("after rebuild:\n got %s\nwant %s", after[i], before[i])
		}
	}
	if !strings.HasPrefix(before[1], fmt.Sprintf("step: %d ", 3*readBatch*readAhead)) {
		t.Errorf("the long transcript was not indexed whole: %s", before[1][:min(200, len(before[1]))])
	}
	for k, want := range map[string]int{"automerge": ftsAutomerge, "crisismerge": ftsCrisisDefault} {
		var got int
		if err := ix.db.QueryRow("SELECT v FROM docs_fts_config WHERE k = ?", k).Scan(&got); err != nil || got != want {
			t.Errorf("FTS5 %s after rebuild = %d (%v); want %d", k, got, err, want)
		}
	}
}

// Hits come tier by tier: one approved decision naming a word outranks any
// number of prompts, agent answers, tool outputs and pasted logs repeating
// it, however often; and pages of any size, at any offset, put together
// are the whole ordered list, each document once.
func TestRankTiers(t *testing.T) {
	c := &rankCorpus{f: newFixture(t), lines: map[string][]string{}, at: t0}
	long := "After a long review of the options, weighing migration cost, operator burden, the rollout plan and " +
		"every concern raised in the review threads, the team settles on zorblat for the scheduler"
	b, _ := json.Marshal(map[string]any{"date": "2026-09-01", "ts": t0, "slug": "zorblat", "summary": long, "issue": 12, "session": "decide"})
	c.decision = append(c.decision, string(b))
	c.say("decide", "user", "Which scheduler should we use?")
	dense := strings.Repeat("settles on zorblat ", 30)
	for i := range 40 {
		s := fmt.Sprintf("loud-%02d", i)
		c.bash(s, "run zorblat", dense)
		c.say(s, "assistant", "zorblat zorblat again")
		c.say(s, "user", "zorblat is failing, here is the log:\n```\n"+strings.Repeat("quux zorblat\n", 5)+"```\nwhy?")
	}
	c.say("prompted", "user", "please look at zorblat")
	for s, lines := range c.lines {
		if err := os.WriteFile(filepath.Join(c.f.transcripts, s+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(c.f.state.Context(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.f.state.Context(), "decisions.jsonl"), []byte(strings.Join(c.decision, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := c.f.open(t)
	for _, q := range []string{"zorblat", `"settles on zorblat"`, "zorblat quux", "what did we settle for zorblat", "zorblat OR quux"} {
		t.Run(q, func(t *testing.T) {
			all := search(t, ix, Query{Text: q, Limit: MaxLimit})
			if len(all.Hits) != all.Total || all.Total == 0 {
				t.Fatalf("%d hits of %d", len(all.Hits), all.Total)
			}
			if relaxed := strings.HasPrefix(q, "what"); all.Relaxed != relaxed {
				t.Errorf("relaxed %v; want %v", all.Relaxed, relaxed)
			}
			key := func(h Hit) string { return fmt.Sprintf("%s %s %s %d", h.Kind, h.Ref, h.Event, h.Tier) }
			seen := map[string]bool{}
			for i, h := range all.Hits {
				if seen[key(h)] {
					t.Errorf("hit %d %s twice", i, key(h))
				}
				seen[key(h)] = true
				if i > 0 && h.Tier < all.Hits[i-1].Tier {
					t.Errorf("hit %d in tier %d after tier %d", i, h.Tier, all.Hits[i-1].Tier)
				}
			}
			if q != "zorblat quux" && (all.Hits[0].Kind != KindDecision || all.Hits[0].Tier != 0) {
				t.Errorf("first hit %s tier %d; want the decision, tier 0", all.Hits[0].Kind, all.Hits[0].Tier)
			}
			for _, size := range []int{1, 3, 7, 50} {
				var got []string
				for off := 0; off < all.Total+size; off += size {
					for _, h := range search(t, ix, Query{Text: q, Limit: size, Offset: off}).Hits {
						got = append(got, key(h))
					}
				}
				var want []string
				for _, h := range all.Hits {
					want = append(want, key(h))
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("pages of %d: %d hits, not the whole list of %d in order", size, len(got), len(want))
				}
			}
		})
	}
}

// A session that settled a topic, its words split between the prompt (the
// symptom) and the message that settles it (the cause), comes before the
// sessions where one message holds every word of the query without
// settling anything. A session whose messages hold every word but settle
// nothing, or that settles something but lacks a word, is not lifted.
func TestRankSessionHoldsQueryAcrossMessages(t *testing.T) {
	c := &rankCorpus{f: newFixture(t), lines: map[string][]string{}, at: t0}
	topics := []struct {
		query                  string
		symptom, cause         string // the deciding session's prompt and settling answer
		loud                   string // a later prompt holding every word, settling nothing
		unsettled              [2]string
		settledShort, lacksOne string // a settling answer holding some words, the session lacking one
	}{
		{"upload hang corporate proxy",
			"Big uploads hang at 99% for everyone in the Osaka office. Find out why.",
			"Root cause was the corporate proxy: it buffered the whole request body before passing it on, so every upload sat at 99% until the buffer drained. Turned off request buffering for the upload route.",
			"Upload hang again behind the corporate proxy, same as last week, customers keep writing in.",
			[2]string{"The upload hang is back for a few users.", "I looked at the corporate proxy dashboards; nothing stands out so far."},
			"Fixed the proxy timeout in the ingress chart.", "Please check the proxy settings of the ingress."},
		{"夜間バッチ 遅延",
			"夜間バッチが朝になっても終わっていない。調べて",
			"原因は、請求テーブルのロック待ちで処理が遅延していたことでした。締め処理を別トランザクションに分けました。",
			"夜間バッチの遅延、今朝もまた起きてる。お客さんから問い合わせが来ている",
			[2]string{"夜間バッチがまた遅い", "ログを見ましたが、遅延の理由はまだ見つかっていません"},
			"遅延の通知を Slack に送るようにしました。", "通知の設定を見直して"},
	}
	for i, tp := range topics {
		s := func(role string) string { return fmt.Sprintf("%s-%02d", role, i) }
		c.say(s("decide"), "user", tp.symptom)
		c.bash(s("decide"), "kubectl logs deploy/api --since=1h | tail -n 3", "ok\nok\nok")
		c.say(s("decide"), "assistant", tp.cause)
		c.say(s("loud"), "user", tp.loud)
		c.say(s("loud"), "assistant", "Looking into it.")
		c.say(s("unsettled"), "user", tp.unsettled[0])
		c.say(s("unsettled"), "assistant", tp.unsettled[1])
		c.say(s("short"), "user", tp.lacksOne)
		c.say(s("short"), "assistant", tp.settledShort)
	}
	for s, lines := range c.lines {
		if err := os.WriteFile(filepath.Join(c.f.transcripts, s+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := c.f.open(t)
	for i, tp := range topics {
		t.Run(tp.query, func(t *testing.T) {
			r := search(t, ix, Query{Text: tp.query, Limit: 10})
			var got []string
			for _, h := range r.Hits {
				got = append(got, fmt.Sprintf("%s tier %d: %s", h.Session, h.Tier, h.Marked("«", "»")))
			}
			if r.Relaxed || len(r.Hits) == 0 {
				t.Fatalf("relaxed %v, hits %q; want the prompt holding every word found as it is", r.Relaxed, got)
			}
			if want := fmt.Sprintf("decide-%02d", i); r.Hits[0].Session != want {
				t.Errorf("first hit from %s; want %s, the session that settled it. Hits:\n%s", r.Hits[0].Session, want, strings.Join(got, "\n"))
			}
			if sessionRank(r, fmt.Sprintf("loud-%02d", i)) == 0 {
				t.Errorf("the prompt holding every word is not found:\n%s", strings.Join(got, "\n"))
			}
			for _, s := range []string{"unsettled", "short"} {
				if n := sessionRank(r, fmt.Sprintf("%s-%02d", s, i)); n != 0 {
					t.Errorf("%s-%02d at %d; want it not found:\n%s", s, i, n, strings.Join(got, "\n"))
				}
			}
			if r.Total != len(r.Hits) {
				t.Errorf("total %d, %d hits", r.Total, len(r.Hits))
			}
		})
	}
}
