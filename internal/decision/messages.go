package decision

import (
	"os"
	"slices"

	"github.com/baton-cli/baton/internal/i18n"
)

var (
	msgResultLine = i18n.Msg{
		JA: "%d 件の決定を投稿し、%d 件をメモリに昇格し、重複 %d 件をスキップしました。",
		EN: "Posted %d decisions, escalated %d to memory, skipped %d duplicates.",
	}
	msgTier2Skipped = i18n.Msg{
		JA: "issue #%d の既存コメントを読めなかったため、このセッションの記録だけで重複を確認しました: %s\n%s",
		EN: "could not read issue #%d's comments, so duplicates were checked against this session's record only: %s\n%s",
	}
	msgBranchFallback = i18n.Msg{
		JA: "作業中の issue を一覧できなかったため、ブランチ名の issue #%d を使います: %s\n%s",
		EN: "could not list the issues in progress, so the branch's issue #%d is used: %s\n%s",
	}
	msgAlreadyPosted = i18n.Msg{
		JA: "決定 %s は直前に issue #%d へ投稿済みだったため、再投稿しませんでした",
		EN: "decision %s was already on issue #%d (posted meanwhile); not posted again",
	}
	msgRecheckFailed = i18n.Msg{
		JA: "投稿直前に issue #%d を読み直せませんでした（それ以前の重複確認に基づいて投稿しました）: %s",
		EN: "could not read issue #%d again just before posting (posted on the strength of the earlier checks): %s",
	}
	msgSummaryView = i18n.Msg{
		JA: "issue #%d のコメントを読めなかったため、要約は投稿していません（重複を避けるため）。%s",
		EN: "could not read issue #%d's comments, so the summary was not posted (to avoid a duplicate). %s",
	}
	msgSummaryPost = i18n.Msg{
		JA: "issue #%d への要約の投稿に失敗しました。%s",
		EN: "posting the summary to issue #%d failed. %s",
	}
	msgNoMemoryDir = i18n.Msg{
		JA: "メモリフォルダが分からないため、cross-issue の決定を昇格していません",
		EN: "no memory folder is known, so cross-issue decisions were not escalated",
	}
	msgOffsetReset = i18n.Msg{
		JA: "transcript が記録済みの位置 %d より短くなっています（置き換えられた可能性）。先頭から読み直します",
		EN: "the transcript is shorter than the recorded offset %d (it was replaced?); reading it again from the start",
	}
	msgExtractorFailed = i18n.Msg{
		JA: "抽出器 %s が失敗したため rules で抽出しました: %s",
		EN: "extractor %s failed, so the rules extractor was used: %s",
	}
	msgBudgetSpent = i18n.Msg{
		JA: "本日のトークン予算 (%d) を使い切ったため、%s ではなく rules で抽出しました",
		EN: "today's token budget (%d) is spent, so the rules extractor was used instead of %s",
	}
)

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }

func containsString(list []string, s string) bool { return slices.Contains(list, s) }
