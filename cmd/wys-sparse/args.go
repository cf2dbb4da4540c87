package main

import (
	"os"
	"slices"
	"strings"
)

// commandNames lists the first arguments wys-sparse takes as commands,
// in the order messages name them.
func commandNames() []string {
	names := []string{"help"}
	for name := range subcommands {
		names = append(names, name)
	}
	slices.Sort(names[1:])
	return names
}

// argumentError is the usage error for a positional argument arg that a
// command does not take: for a file or directory, the flag that reads
// it (fileFlag for a file, -split for a directory of the main command);
// for a near miss of a command's name, that command; otherwise the flag
// the command wants, fileFlag.
func argumentError(arg, fileFlag, what string, commands bool) error {
	if fi, err := os.Stat(arg); err == nil {
		if fi.IsDir() && commands {
			return usagef("unexpected argument %q: to train on the split in that directory, give -split %s", arg, arg)
		}
		if !fi.IsDir() {
			return usagef("unexpected argument %q: to read that file, give %s %s", arg, fileFlag, arg)
		}
	}
	if !commands {
		return usagef("unexpected argument %q: give the %s with %s FILE", arg, what, fileFlag)
	}
	if arg == "help" {
		return usagef("unexpected argument \"help\" after flags: 'wys-sparse help' (or -help) lists the flags, 'wys-sparse help COMMAND' a command's")
	}
	if slices.Contains(commandNames(), arg) {
		return usagef("unexpected argument %q after flags: a command comes first, its flags after it ('wys-sparse %s -help' lists them)", arg, arg)
	}
	if name := nearCommand(arg); name != "" {
		return usagef("unexpected argument %q: no command of that name; did you mean 'wys-sparse %s'?", arg, name)
	}
	return usagef("unexpected argument %q: give the %s with %s FILE (the commands are %s)", arg, what, fileFlag, strings.Join(commandNames(), ", "))
}

// exists reports whether a file or directory path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// nearCommand returns the command whose name is at most two edits from
// arg (case aside), or "" when none is.
func nearCommand(arg string) string {
	a := strings.ToLower(arg)
	for _, name := range commandNames() {
		if editDistance(a, name) <= 2 {
			return name
		}
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
