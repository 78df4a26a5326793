// Package plural writes counts with their nouns in English: "1 file",
// "3 files", "2 matches", "1 child", "4 children". It is a leaf every
// package may import, so a count on screen or in a tool result never reads
// "1 files" or "(1 messages)".
package plural

import (
	"strconv"
	"strings"
)

// Count returns n and noun, the noun made plural unless n is 1: "1 file",
// "0 files", "2 matches", "3 entries". Nouns English makes plural other
// than by an ending (child, person) take CountOf.
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// CountOf returns n and one or many, as n asks: "1 child", "2 children".
func CountOf(n int, one, many string) string {
	if n == 1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Pick returns one when n is 1 and many otherwise, for words English does
// not make plural by an ending: "it"/"them", "its"/"their".
func Pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Noun returns noun as n asks, without the number: "file" for 1, "files"
// for any other count.
func Noun(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	return Of(noun)
}

// Of returns the plural of a regular English noun: a -s, -x, -z, -ch or
// -sh ending takes "es", a consonant and -y takes "ies", anything else
// "s". A noun of several words changes its last word ("tool call" →
// "tool calls").
func Of(noun string) string {
	lower := strings.ToLower(noun)
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(lower, end) {
			return noun + "es"
		}
	}
	if n := len(lower); n >= 2 && lower[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(lower[n-2])) {
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
