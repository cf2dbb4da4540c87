package wys

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs are the Markdown files whose links TestDocLinks checks: the
// README, the measurements it summarises, and the benchmarks' guide.
var docs = []string{"README.md", "docs/results.md", "benchmarks/README.md"}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	mdFence   = regexp.MustCompile("(?ms)^```.*?^```")
)

// TestDocLinks checks every relative link of the docs: the file it names
// exists, and an #anchor names a heading of that file (GitHub's slugs).
// The README's results moved to docs/results.md with their links and
// anchors rewritten; a link left pointing at the old place fails here.
func TestDocLinks(t *testing.T) {
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := mdFence.ReplaceAllString(string(b), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %s: %v", doc, target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !hasAnchor(t, path, anchor) {
				t.Errorf("%s: link %s: %s has no heading with the anchor #%s", doc, target, path, anchor)
			}
		}
	}
}

// hasAnchor reports whether the Markdown file at path has a heading whose
// GitHub anchor is anchor.
func hasAnchor(t *testing.T, path, anchor string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mdHeading.FindAllStringSubmatch(mdFence.ReplaceAllString(string(b), ""), -1) {
		if slug(m[1]) == anchor {
			return true
		}
	}
	return false
}

// slug returns GitHub's anchor for a heading: lower case, spaces to
// hyphens, every other character that is not a letter, digit, hyphen or
// underscore dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && isLetter(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isLetter reports whether r, outside ASCII, is kept in a slug.
func isLetter(r rune) bool {
	return !strings.ContainsRune("’‘“”—–·×…→", r)
}

// TestSlug pins GitHub's anchors for headings of the docs.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Time to the dense reference's AUC":                                      "time-to-the-dense-references-auc",
		"Multi-label classification on PPI and POS (DeepWalk/node2vec protocol)": "multi-label-classification-on-ppi-and-pos-deepwalknode2vec-protocol",
		"Large graphs: test AUC against time, against gensim DeepWalk":           "large-graphs-test-auc-against-time-against-gensim-deepwalk",
		"Scoring an embedding file: `wys-sparse eval`":                           "scoring-an-embedding-file-wys-sparse-eval",
		"Sensitivity to C and β (the paper's Figure 4)":                          "sensitivity-to-c-and-β-the-papers-figure-4",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}
