package main

import (
	"fmt"
	"strconv"
	"strings"
)

// shardFlag is --shard i/n: of the runs a command would make, in the order
// it makes them, this process makes the k-th (from 0) when k mod n is
// i-1. Every process given the same selection computes the same order, so
// shards 1/n to n/n make each run exactly once; round-robin keeps their
// sizes within one run of each other. The zero value makes every run.
type shardFlag struct{ i, n int }

func (s *shardFlag) String() string {
	if s.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.i, s.n)
}

func (s *shardFlag) Set(v string) error {
	is, ns, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return fmt.Errorf("%q: want i/n with 1 <= i <= n, such as 2/4", v)
	}
	s.i, s.n = i, n
	return nil
}

// keep reports whether the k-th run (from 0) is this shard's.
func (s shardFlag) keep(k int) bool {
	return s.n == 0 || k%s.n == s.i-1
}
