package main

import "testing"

// TestHelpCommand checks that "wys-sparse help [COMMAND]" and
// "wys-sparse COMMAND help" print what -help prints, on stdout with exit 0.
func TestHelpCommand(t *testing.T) {
	for _, c := range []struct{ help, flag []string }{
		{[]string{"help"}, []string{"-help"}},
		{[]string{"help", "eval"}, []string{"eval", "-help"}},
		{[]string{"help", "neighbors"}, []string{"neighbors", "-help"}},
		{[]string{"eval", "help"}, []string{"eval", "-help"}},
	} {
		code, stdout, stderr := runCLI(t, c.help...)
		wantCode, want, _ := runCLI(t, c.flag...)
		if code != 0 || wantCode != 0 || stderr != "" {
			t.Errorf("%q: exit %d (-help %d), stderr %q", c.help, code, wantCode, stderr)
		}
		if stdout != want || len(want) < 500 {
			t.Errorf("%q printed %d bytes, not the %d of %q", c.help, len(stdout), len(want), c.flag)
		}
	}
}

// TestEditDistance checks the Levenshtein distance on pairs worked out by
// hand, and nearCommand on the misspellings it is for.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "eval", 4}, {"eval", "", 4}, {"eval", "eval", 0},
		{"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"evl", "eval", 1},
		{"neighbours", "neighbors", 1}, {"vale", "eval", 2}, {"abc", "cab", 2},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for arg, want := range map[string]string{
		"evl": "eval", "Eval": "eval", "neighbour": "neighbors", "hepl": "help",
		"edges.txt": "", "train": "", "foo": "",
	} {
		if got := nearCommand(arg); got != want {
			t.Errorf("nearCommand(%q) = %q, want %q", arg, got, want)
		}
	}
}
