// A small Go program the tests build for other architectures (GOARCH s390x, mips, 386)
// to get `.gopclntab` tables in other byte orders, pointer sizes and instruction quanta.
package main

import "os"

//go:noinline
func greet(who string) int {
	println("hello,", who)
	return len(who)
}

func main() {
	os.Exit(greet("world") - 5)
}
