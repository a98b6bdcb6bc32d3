// Command searchlat measures `baton search` as a person runs it: the whole
// process, index caught up first, on a repository whose index is built.
// Queries run interleaved, -rounds times each; it prints each query's
// median and the median and 90th percentile of all runs.
//
//	go run ./bench/searchlat -baton ./baton -repo /tmp/bench/repo -home /tmp/bench/home word1 "two words" …
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	baton := flag.String("baton", "baton", "baton binary")
	repo := flag.String("repo", ".", "repository to search in (its index built)")
	home := flag.String("home", os.Getenv("HOME"), "HOME for baton (where the transcripts are)")
	rounds := flag.Int("rounds", 7, "runs of each query")
	flag.Parse()
	queries := flag.Args()
	if len(queries) == 0 {
		fmt.Fprintln(os.Stderr, "searchlat: give queries as arguments")
		os.Exit(2)
	}
	per := make([][]time.Duration, len(queries))
	var all []time.Duration
	for range *rounds {
		for i, q := range queries {
			cmd := exec.Command(*baton, append([]string{"search", "--limit", "20"}, strings.Fields(q)...)...)
			cmd.Dir = *repo
			cmd.Env = append(os.Environ(), "HOME="+*home)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				fmt.Fprintf(os.Stderr, "searchlat: %q: %v\n%s", q, err, out)
				os.Exit(1)
			}
			per[i] = append(per[i], d)
			all = append(all, d)
		}
	}
	for i, q := range queries {
		slices.Sort(per[i])
		fmt.Printf("%-40q median %6.1f ms\n", q, ms(per[i][len(per[i])/2]))
	}
	slices.Sort(all)
	fmt.Printf("all %d runs: median %.1f ms, p90 %.1f ms\n", len(all), ms(all[len(all)/2]), ms(all[len(all)*9/10]))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
