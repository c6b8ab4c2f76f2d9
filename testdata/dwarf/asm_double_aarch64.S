/* asm_double.S for AArch64: a function with a symbol but no DWARF. */
	.text
	.globl	asm_double
	.type	asm_double, %function
asm_double:
	lsl	w0, w0, #1
	add	w0, w0, #1
	ret
	.size	asm_double, .-asm_double
	.section	.note.GNU-stack,"",%progbits
