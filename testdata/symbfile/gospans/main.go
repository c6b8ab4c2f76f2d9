// Command gospans prints, for every function of an ELF's .gopclntab, the span and file
// symblib's Go extractor gives it, computed with Go's own debug/gosym: the function ends
// after the last PC its line table maps (alignment padding before the next function is
// not covered), and its file is the file of its entry PC. A function with a PC whose line
// is 0 or below -1, or with no mapped PC, is left out, as symblib skips it.
//
// A function whose entry PC has no line has no line table: the linker wrote offset 0
// (Go 1.24+ does for its go:textfipsstart-style markers), which the runtime reads as "no
// table" but debug/gosym decodes from the table's leading padding byte on. It is left
// out too.
//
// Output: one line per function, "<entry hex> <end hex> <name>\t<file>".
//
// With -funcs first, it prints every function of the table instead, as debug/gosym lists
// it: "<entry hex> <end hex> <name>", the end being the next function's entry.
package main

import (
	"bufio"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
)

func main() {
	args := os.Args[1:]
	funcs := len(args) > 0 && args[0] == "-funcs"
	if funcs {
		args = args[1:]
	}
	f, err := elf.Open(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pcln, err := f.Section(".gopclntab").Data()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	table, err := gosym.NewTable(nil, gosym.NewLineTable(pcln, f.Section(".text").Addr))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	if funcs {
		for _, fn := range table.Funcs {
			fmt.Fprintf(out, "%x %x %s\n", fn.Entry, fn.End, fn.Name)
		}
		return
	}
	for _, fn := range table.Funcs {
		if _, line, _ := table.PCToLine(fn.Entry); line == -1 {
			continue
		}
		end, bad := fn.Entry, false
		for pc := fn.Entry; pc < fn.End; pc++ {
			// go12PCToLine answers -1 for a PC its table does not map.
			_, line, _ := table.PCToLine(pc)
			if line != -1 {
				end = pc + 1
			}
			if line == 0 || line < -1 {
				bad = true
			}
		}
		if bad || end == fn.Entry {
			continue
		}
		file, _, _ := table.PCToLine(fn.Entry)
		fmt.Fprintf(out, "%x %x %s\t%s\n", fn.Entry, end, fn.Name, file)
	}
}
