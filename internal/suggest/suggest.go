// Package suggest finds the closest of several known names to a misspelt
// one, for messages such as `unknown key "concurency": did you mean
// "concurrency"?`.
package suggest

// Distance is the Levenshtein distance between a and b, in bytes: the
// number of single-byte insertions, deletions and substitutions that turn
// one into the other.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			d := prev[j-1]
			if a[i-1] != b[j-1] {
				d++
			}
			d = min(d, prev[j]+1, cur[j-1]+1)
			cur[j] = d
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
