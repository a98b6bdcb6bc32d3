package web

import (
	"bytes"
	"html/template"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown turns Markdown that came from a session (a briefing) into HTML
// that is safe to put in a page: HTML in the source is shown as text, never
// passed through; a link keeps its target only when that is an http, https
// or mailto address or a path on this server, otherwise it is plain text;
// an image is its description. Line breaks are kept, as the briefing is
// written line by line.
func markdown(src string) (template.HTML, error) {
	md := goldmark.New(
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(safeLinks{}, 100))),
		goldmark.WithRendererOptions(
			html.WithHardWraps(),
			renderer.WithNodeRenderers(util.Prioritized(rawAsText{}, 100)),
		),
	)
	var buf bytes.Buffer
	if err := md.Convert([]byte(endLists(src)), &buf); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil
}

// listItem is a line that starts a list item.
var listItem = regexp.MustCompile(`^ {0,3}([-*+]|[0-9]{1,9}[.)])( |$)`)

// endLists ends a list at a line that follows a list item flush left
// without being an item itself: the briefing is written line by line, and
// "**Next**:" after a list is a new line, not the last item's lazy
// continuation as Markdown would read it. Fenced code is left alone.
func endLists(src string) string {
	lines := strings.Split(src, "\n")
	out := make([]string, 0, len(lines))
	fence, inList := "", false
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence, inList = t[:3], false
		case listItem.MatchString(l):
			inList = true
		case strings.TrimSpace(l) == "":
			inList = false
		case inList && t == l:
			out = append(out, "")
			inList = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// safeLink reports whether dest may be a link's target: its scheme, read
// as a browser reads it, is http, https or mailto, or it has none and stays
// on this server (a path or a fragment, not //host).
func safeLink(dest string) bool {
	d := strings.TrimLeft(dest, "\x00\t\n\f\r ")
	end := strings.IndexAny(d, ":/?#")
	if end < 0 || d[end] != ':' {
		return !strings.HasPrefix(d, "//") && !strings.HasPrefix(d, `\`) && !strings.HasPrefix(d, `/\`)
	}
	switch strings.ToLower(d[:end]) {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// safeLinks replaces links to other schemes, and images, with their text.
type safeLinks struct{}

func (safeLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var unlink []ast.Node
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !safeLink(string(n.Destination)) {
				unlink = append(unlink, n)
			}
		case *ast.AutoLink:
			if n.AutoLinkType == ast.AutoLinkURL && !safeLink(string(n.URL(src))) {
				unlink = append(unlink, n)
			}
		case *ast.Image:
			unlink = append(unlink, n)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unlink {
		parent := n.Parent()
		if a, ok := n.(*ast.AutoLink); ok {
			parent.ReplaceChild(parent, n, ast.NewString(a.Label(src)))
			continue
		}
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
}

// rawAsText renders HTML found in the Markdown as escaped text.
type rawAsText struct{}

func (rawAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := range segs.Len() {
				seg := segs.At(i)
				template.HTMLEscape(w, seg.Value(src))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		b := n.(*ast.HTMLBlock)
		if entering {
			w.WriteString("<p>")
			lines := b.Lines()
			for i := range lines.Len() {
				if i > 0 {
					w.WriteString("<br>\n")
				}
				line := lines.At(i)
				template.HTMLEscape(w, bytes.TrimRight(line.Value(src), "\r\n"))
			}
		} else {
			if b.HasClosure() {
				w.WriteString("<br>\n")
				template.HTMLEscape(w, bytes.TrimRight(b.ClosureLine.Value(src), "\r\n"))
			}
			w.WriteString("</p>\n")
		}
		return ast.WalkContinue, nil
	})
}
