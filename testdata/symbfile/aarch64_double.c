/* asm_double for the aarch64 build of testdata/dwarf/{main,other}.c (asm_double.S is
 * x86-64 assembly), with a system call so that SVC return pads are exercised. */
unsigned asm_double(unsigned x)
{
	if (x == 0xdeadbeefu) {
		register long nr __asm__("x8") = 93; /* exit */
		register long arg __asm__("x0") = 1;
		__asm__ volatile("svc #0" : "+r"(arg) : "r"(nr) : "memory");
	}
	return x * 2;
}
