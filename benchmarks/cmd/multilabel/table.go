package main

import (
	"fmt"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/eval"
)

// section formats one dataset's tables: Macro-F1 and Micro-F1 per method
// and ratio, the published Macro-F1 at 50% beside them, and the notes.
func section(name string, g *pipeline.Graph, lab *pipeline.MultiLabels, rows []row, checks []string) string {
	var b strings.Builder
	total := 0
	for _, ls := range lab.Of {
		total += len(ls)
	}
	fmt.Fprintf(&b, "## %s\n\n%d nodes, %d edges, %d labels (%.2f per node on average).\n\n", name, g.N(), g.Adj.NNZ()/2, lab.Count, float64(total)/float64(len(lab.Of)))
	if len(rows) == 0 {
		return b.String()
	}
	ratios := rows[0].res.Ratios
	head := "| method |"
	rule := "|---|"
	for _, r := range ratios {
		head += " " + eval.Percent(r.Ratio) + " |"
		rule += "---|"
	}
	for _, metric := range []string{"Macro", "Micro"} {
		fmt.Fprintf(&b, "%s-F1 by share of labelled nodes used for training:\n\n%s\n%s\n", metric, head, rule)
		for _, r := range rows {
			b.WriteString("| " + r.name + " |")
			for _, s := range r.res.Ratios {
				mean, std := s.MacroMean, s.MacroStd
				if metric == "Micro" {
					mean, std = s.MicroMean, s.MicroStd
				}
				fmt.Fprintf(&b, " %.4f ± %.4f |", mean, std)
			}
			b.WriteString("\n")
		}
		if metric == "Macro" {
			for _, p := range published[name] {
				b.WriteString("| " + p.method + " |")
				for _, s := range ratios {
					cell := " — |"
					if s.Ratio == 0.5 {
						cell = fmt.Sprintf(" %.4f |", p.macro)
					}
					b.WriteString(cell)
				}
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(verdict(name, rows))
	for _, r := range rows {
		fmt.Fprintf(&b, "- %s: %s%s.\n", r.name, r.note, convergenceNote(r.res))
	}
	for _, c := range checks {
		b.WriteString("- " + c + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// verdict compares each method's Macro-F1 at 50% with node2vec's
// published one.
func verdict(name string, rows []row) string {
	pub := published[name]
	if len(pub) == 0 {
		return ""
	}
	n2v := pub[len(pub)-1]
	var b strings.Builder
	for _, r := range rows {
		s := r.res.At(0.5)
		if s == nil {
			continue
		}
		word := "below"
		if s.MacroMean >= n2v.macro {
			word = "at or above"
		}
		fmt.Fprintf(&b, "%s: Macro-F1 at 50%% %.4f ± %.4f, %s node2vec's published %.4f.\n", r.name, s.MacroMean, s.MacroStd, word, n2v.macro)
	}
	return b.String() + "\n"
}

func convergenceNote(m *eval.MultiLabelResult) string {
	if m.NotConverged == 0 {
		return ""
	}
	return fmt.Sprintf("; %d binary fits stopped at the iteration limit", m.NotConverged)
}
