package recall

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/textcut"
)

// PushOptions say what to push and within what.
type PushOptions struct {
	State state.Dir
	Route string
	// Session is the starting session's id; Source its SessionStart source
	// or the case a host names (see DetectRestart).
	Session, Source string
	Now             time.Time
	Lang            i18n.Lang
	// Budget is the most characters (UTF-16 units) of the text.
	Budget int
	// Journal, when set, is where the route's sessions are recorded: the
	// restart case is read from it. Without it the case is Source's.
	Journal *journal.Journal
	// ScanBytes bounds how far back the journal is read (default
	// DefaultScanBytes).
	ScanBytes int64
	// Task is the worktree's task, when known: the recent summary's goal
	// is it, not the prompt the summary began from.
	Task string
	// Hide, when set, leaves out the decisions it reports (those a
	// teammate retracted through the shared memory).
	Hide func(*Decision) bool
}

// Pushed is a push's text and what it is made of.
type Pushed struct {
	Text    string
	Restart Restart
	Assembly
	// DailyDue is the day whose L2 entry is missing though the journal's
	// last activity before today was on it: the first start of a new day
	// asks for it to be built (in the background).
	DailyDue string
}

// layerReadBytes bounds how much of the L1 and L2 files a job reads
// looking for the newest entries, which are at the end.
const layerReadBytes = 256 << 10

// pushReadBytes bounds how much of the L1 and L2 files a push reads: an
// entry is a few kilobytes at most.
const pushReadBytes = 64 << 10

// latestDays is how many of the last L2 entries a push compares to find
// the newest day: a rebuild of an older day can come after it.
const latestDays = 16

// NewestDecisions decodes the route's decisions from the newest back until
// they fill budget characters: older ones could not be pushed beside them.
// It returns their lines in the log's text format, oldest first, and how
// many older lines it left unread.
func NewestDecisions(f Files, budget int, hide func(*Decision) bool) (ds []string, older int, err error) {
	lines, err := tailLines(f.Decisions(), maxDecisionsRead)
	if err != nil {
		return nil, 0, err
	}
	used := 0
	i := len(lines) - 1
	for ; i >= 0 && used <= budget; i-- {
		var d Decision
		if json.Unmarshal(lines[i], &d) != nil || d.check() != nil || hide != nil && hide(&d) {
			continue
		}
		line := d.Line()
		ds = append(ds, line)
		used += hook.Len(line) + 1
	}
	slices.Reverse(ds)
	return ds, i + 1, nil
}

// latestDaily returns the L2 entry of the newest day among the last few.
func latestDaily(f Files) (Daily, bool, error) {
	lines, err := tailLines(f.L2(), pushReadBytes)
	if err != nil {
		return Daily{}, false, err
	}
	best, bestDate := -1, ""
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-latestDays; i-- {
		var d struct {
			Date string `json:"date"`
		}
		if json.Unmarshal(lines[i], &d) == nil && d.Date > bestDate {
			best, bestDate = i, d.Date
		}
	}
	var d Daily
	if best < 0 || json.Unmarshal(lines[best], &d) != nil {
		return Daily{}, false, nil
	}
	return d, true, nil
}

// Push assembles the layers of a route for a session that (re)starts:
// the restart case, then L3, L1 and L2 within o.Budget, whole entries only,
// saying what was left out and how to pull it. It only reads files and
// calls no model, so it can run on the session-start hook's path. It
// returns an empty text when there are no layers and nothing to warn about.
func Push(ctx context.Context, o PushOptions) (Pushed, error) {
	var p Pushed
	p.Restart = Restart{Case: sourceCase(o.Source)}
	if o.Journal != nil {
		var err error
		if p.Restart, err = DetectRestart(ctx, o.Journal, o.Session, o.Source, o.ScanBytes); err != nil {
			return p, err
		}
	}
	l, err := LoadLayers(o, p.Restart.PreviousAt)
	if err != nil {
		return p, err
	}
	p.DailyDue = l.DailyDue
	if len(l.Items) == 0 && l.Older == 0 && p.Restart.Case != CaseCrash {
		return p, nil
	}
	lay := pushLayout(l.Files.Route, p.Restart, o)
	lay.Left = map[Layer]int{L3: l.Older}
	p.Assembly = Assemble(l.Items, lay, o.Budget)
	p.Text = p.Assembly.Text
	return p, nil
}

// Offered are a route's entries as a push offers them.
type Offered struct {
	Files Files
	// Items are the decisions (L3), the recent summary (L1) and the daily
	// summary (L2), ranked by tier (see TierPriority).
	Items []Item
	// Older counts the decisions too old to fit beside the newer ones.
	Older int
	// DailyDue: see Pushed.
	DailyDue string
}

// LoadLayers reads the route's layers for a push within o.Budget.
// lastActive is when the route was last active before this start (zero
// when unknown): the first start of a new day asks for that day's summary.
func LoadLayers(o PushOptions, lastActive time.Time) (Offered, error) {
	var l Offered
	f, err := FilesFor(o.State, o.Route)
	if err != nil {
		return l, err
	}
	l.Files = f
	decisions, older, err := NewestDecisions(f, o.Budget, o.Hide)
	if err != nil {
		return l, err
	}
	recent, hasRecent, err := lastOf[Recent](f.L1(), pushReadBytes)
	if err != nil {
		return l, err
	}
	daily, hasDaily, err := latestDaily(f)
	if err != nil {
		return l, err
	}
	l.DailyDue = dailyDue(lastActive, o.Now, daily, hasDaily)
	l.Items, l.Older = pushItems(decisions, &recent, hasRecent, &daily, hasDaily, o), older
	return l, nil
}

// The tiers of a push, in the order entries are kept when not all fit:
// the newest decisions up to half the budget, then what the worktree was
// doing (a briefing's own entries), the recent summary, the daily summary,
// and the older decisions last, so that a long decision log cannot crowd out
// what was going on just now.
const (
	TierDecisions = iota
	TierNow
	TierRecent
	TierDaily
	TierOlderDecisions
)

// TierPriority is the Priority of the n-th item of a tier.
func TierPriority(tier, n int) int { return tier*1000000 + n }

// pushItems ranks the entries: L3 newest decision first, the decisions past
// half the budget in the last tier.
func pushItems(decisions []string, recent *Recent, hasRecent bool, daily *Daily, hasDaily bool, o PushOptions) []Item {
	items := make([]Item, len(decisions), len(decisions)+2)
	room := o.Budget / 2
	for i := len(decisions) - 1; i >= 0; i-- {
		text := decisions[i]
		tier := TierDecisions
		if room -= hook.Len(text) + 1; room < 0 {
			tier = TierOlderDecisions
		}
		items[i] = Item{Layer: L3, Text: text, Priority: TierPriority(tier, len(decisions)-i)}
	}
	if hasRecent {
		r := *recent
		if o.Task != "" {
			r.Goal = o.Task
		}
		r.OpenLoops = forModel(r.OpenLoops)
		items = append(items, Item{Layer: L1, Text: recentText(&r, o.Now.Location()), Priority: TierPriority(TierRecent, 0)})
	}
	if hasDaily {
		d := *daily
		d.Decisions = forModel(d.Decisions)
		items = append(items, Item{Layer: L2, Text: dailyText(&d), Priority: TierPriority(TierDaily, 0)})
	}
	return items
}

// newestDaily returns the route's L2 entry of the newest day, or of day
// when given; of several entries for one day the last written wins.
func newestDaily(f Files, day string) (Daily, bool, error) {
	all, err := readAll[Daily](f.L2(), layerReadBytes)
	if err != nil {
		return Daily{}, false, err
	}
	var best Daily
	ok := false
	for _, d := range all {
		if day != "" && d.Date != day {
			continue
		}
		if !ok || d.Date >= best.Date {
			best, ok = d, true
		}
	}
	return best, ok, nil
}

// dailyDue is the last active day before today when its L2 entry is
// missing.
func dailyDue(lastActive time.Time, now time.Time, newest Daily, has bool) string {
	if lastActive.IsZero() {
		return ""
	}
	day := lastActive.In(now.Location()).Format(DateLayout)
	if day >= now.Format(DateLayout) || (has && newest.Date >= day) {
		return ""
	}
	return day
}

func recentText(r *Recent, loc *time.Location) string {
	meta := r.TS.In(loc).Format("2006-01-02 15:04")
	if r.Session != "" {
		meta += " · session " + textcut.ShortID(r.Session)
	}
	if r.Trigger != "" {
		meta += " · " + r.Trigger
	}
	// An empty Open Loops would read as "nothing is open" beside what the
	// briefing lists as open now: it says nothing, so it is left out.
	secs := slices.DeleteFunc(r.sections(), func(s Section) bool { return s.Name == secLoops && len(s.Items) == 0 })
	return "[" + meta + "]\n" + renderSections(secs, schemaOf(L1))
}

// forModel drops from a summary's items the candidates awaiting approval:
// they and the commands that approve them are the person's (`baton context
// approve`, `baton context show`), and the briefing counts them in one line.
func forModel(items []string) []string {
	return slices.DeleteFunc(slices.Clone(items), func(it string) bool {
		return strings.HasPrefix(it, msgAwaiting.Format(i18n.EN, "")) || strings.HasPrefix(it, msgAwaiting.Format(i18n.JA, "")) ||
			strings.Contains(it, "[baton context approve ")
	})
}

func dailyText(d *Daily) string { return "[" + d.Date + "]\n" + d.Text() }

var (
	msgPushHead = i18n.Msg{
		JA: "## baton: 文脈の復元（ルート %s）",
		EN: "## baton: context recovery (route %s)",
	}
	msgCrashed = i18n.Msg{
		JA: "前回の実行（セッション %s、最後の記録 %s・%s）は SessionEnd なしで終わっています: クラッシュか強制終了です（別の画面でまだ動いている可能性もあります）。直前の作業は MCP ツール session_log か `baton fetch` の session_log で取得できます。",
		EN: "The previous run (session %s, last record %s at %s) ended without SessionEnd: it crashed or was killed (or is still running elsewhere). Pull its last records with the MCP tool session_log or a session_log fetch.",
	}
	msgLayersBelow = i18n.Msg{
		JA: "以下は承認済みの決定 (L3)、直近の要約 (L1)、日次の要約 (L2) です。決定は覆さず、未解決事項から続けてください。",
		EN: "Below: approved decisions (L3), the recent summary (L1) and the daily summary (L2). Keep to the decisions and continue from the open loops.",
	}
	msgLeftOut = i18n.Msg{
		JA: "（baton: 文字数の上限 %d のため省略: %s。MCP ツール decisions / session_log、`baton context show --route %s`、または <<FETCH>> タグで取得できます）",
		EN: "(baton: left out to stay within %d characters: %s. Pull them with the MCP tools decisions / session_log, `baton context show --route %s`, or a <<FETCH>> tag.)",
	}
)

func caseMsg(c Case) i18n.Msg {
	switch c {
	case CaseResume:
		return i18n.Msg{JA: "セッションを再開しました。", EN: "The session was resumed."}
	case CaseCompact:
		return i18n.Msg{JA: "会話が圧縮されました。前の会話の細部は残っていません。", EN: "The conversation was compacted; its details are gone."}
	case CaseClear:
		return i18n.Msg{JA: "会話が消去されました。", EN: "The conversation was cleared."}
	case CaseSwitch:
		return i18n.Msg{JA: "このルートを新しいセッション ID が引き継ぎました（アカウント切替など）。", EN: "A new session id took over this route (an account switch or similar)."}
	case CaseCrash:
		return i18n.Msg{JA: "前回の実行は正常に終了していません。", EN: "The previous run did not end normally."}
	}
	return i18n.Msg{JA: "新しいセッションの開始です。", EN: "A new session started."}
}

// MsgHeadTeam heads the block of what teammates shared; MsgLeftTeam counts
// its entries left out.
var (
	MsgHeadTeam = i18n.Msg{JA: "### チームメイトが共有した記憶（リポジトリのリモート経由）", EN: "### What teammates shared (through the repository's remote)"}
	MsgLeftTeam = i18n.Msg{JA: "チームメイトの記憶 %d 件", EN: "%d of teammates' entries"}
)

func headingMsg(l Layer) i18n.Msg {
	switch l {
	case L3:
		return i18n.Msg{JA: "### 承認済みの決定 (L3)", EN: "### Approved decisions (L3)"}
	case L1:
		return i18n.Msg{JA: "### 直近の要約 (L1)", EN: "### Recent summary (L1)"}
	case LNow:
		return i18n.Msg{JA: "### 前回の続き", EN: "### Where you left off"}
	case LTeam:
		return MsgHeadTeam
	}
	return i18n.Msg{JA: "### 日次の要約 (L2)", EN: "### Daily summary (L2)"}
}

func leftCountMsg(l Layer) i18n.Msg {
	switch l {
	case L3:
		return i18n.Msg{JA: "古い決定 %d 件", EN: "%d older decision(s)"}
	case L1:
		return i18n.Msg{JA: "直近の要約 %d 件", EN: "%d recent summary"}
	case LNow:
		return i18n.Msg{JA: "前回の続きの項目 %d 件", EN: "%d item(s) of where you left off"}
	case LTeam:
		return MsgLeftTeam
	}
	return i18n.Msg{JA: "日次の要約 %d 件", EN: "%d daily summary"}
}

func pushLayout(route string, r Restart, o PushOptions) Layout {
	lang := o.Lang
	head := []string{msgPushHead.Format(lang, route), caseMsg(r.Case).In(lang)}
	if r.Case == CaseCrash && r.Previous != "" {
		head = append(head, msgCrashed.Format(lang, textcut.ShortID(r.Previous), r.PreviousEvent, r.PreviousAt.In(o.Now.Location()).Format("2006-01-02 15:04")))
	}
	head = append(head, msgLayersBelow.In(lang))
	headings := map[Layer]string{}
	for _, l := range layerOrder {
		headings[l] = headingMsg(l).In(lang)
	}
	return Layout{
		Lang:     lang,
		Head:     strings.Join(head, "\n"),
		Headings: headings,
		Note: func(left map[Layer]int) string {
			var parts []string
			for _, l := range layerOrder {
				if left[l] > 0 {
					parts = append(parts, leftCountMsg(l).Format(lang, left[l]))
				}
			}
			sep := ", "
			if lang == i18n.JA {
				sep = "、"
			}
			return msgLeftOut.Format(lang, o.Budget, strings.Join(parts, sep), route)
		},
	}
}
