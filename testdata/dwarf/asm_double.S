/* A function with a symbol but no DWARF: the builder keeps it from the symbol table. */
	.text
	.globl	asm_double
	.type	asm_double, @function
asm_double:
	leal	(%rdi,%rdi), %eax
	addl	$1, %eax
	ret
	.size	asm_double, .-asm_double
	.section	.note.GNU-stack,"",@progbits
