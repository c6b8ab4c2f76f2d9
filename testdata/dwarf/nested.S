/* Overlapping functions in one unit, described by hand-written DWARF 4: a subprogram
   nested in the range of another (with an inlined call inside it), and two subprograms
   with the same range, as identical code folding leaves them, the first with an inlined
   call. The line table comes from the .loc directives. */
	.text
	.globl	main
	.type	main, @function
main:
.Lmain:
	.file 1 "nested.c"
	.loc 1 10 0
	.rept 16
	nop
	.endr
.Lnested:
	.loc 1 20 0
	.rept 4
	nop
	.endr
.Linl:
	.loc 1 30 0
	.rept 8
	nop
	.endr
.Linl_end:
	.loc 1 21 0
	.rept 4
	nop
	.endr
.Lnested_end:
.Ltwin:
	.loc 1 40 0
	.rept 4
	nop
	.endr
.Ltwin_inl:
	.loc 1 50 0
	.rept 8
	nop
	.endr
.Ltwin_inl_end:
	.loc 1 41 0
	.rept 4
	nop
	.endr
.Ltwin_end:
	.loc 1 11 0
	xorl	%eax, %eax
	ret
.Lmain_end:
	.size	main, .-main

	.section	.debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1		/* compile unit */
	.uleb128 0x11
	.byte	1
	.uleb128 0x3, 0x8	/* name, string */
	.uleb128 0x1b, 0x8	/* comp_dir, string */
	.uleb128 0x13, 0x5	/* language, data2 */
	.uleb128 0x11, 0x1	/* low_pc, addr */
	.uleb128 0x12, 0x7	/* high_pc, data8 */
	.uleb128 0x10, 0x17	/* stmt_list, sec_offset */
	.byte	0, 0
	.uleb128 2		/* subprogram with code and children */
	.uleb128 0x2e
	.byte	1
	.uleb128 0x3, 0x8
	.uleb128 0x11, 0x1
	.uleb128 0x12, 0x7
	.byte	0, 0
	.uleb128 3		/* abstract subprogram */
	.uleb128 0x2e
	.byte	0
	.uleb128 0x3, 0x8
	.uleb128 0x20, 0xb	/* inline, data1 */
	.byte	0, 0
	.uleb128 4		/* inlined subroutine */
	.uleb128 0x1d
	.byte	0
	.uleb128 0x31, 0x13	/* abstract_origin, ref4 */
	.uleb128 0x11, 0x1
	.uleb128 0x12, 0x7
	.uleb128 0x58, 0xb	/* call_file, data1 */
	.uleb128 0x59, 0xb	/* call_line, data1 */
	.byte	0, 0
	.uleb128 5		/* subprogram with code, no children */
	.uleb128 0x2e
	.byte	0
	.uleb128 0x3, 0x8
	.uleb128 0x11, 0x1
	.uleb128 0x12, 0x7
	.byte	0, 0
	.byte	0

	.section	.debug_info,"",@progbits
.Linfo:
	.long	.Linfo_end - .Linfo_version
.Linfo_version:
	.value	4
	.long	.Labbrev
	.byte	8
	.uleb128 1
	.string	"nested.c"
	.string	"/src"
	.value	0xc		/* DW_LANG_C99 */
	.quad	.Lmain
	.quad	.Lmain_end - .Lmain
	.long	.Lline
	.uleb128 2		/* outer: all of main */
	.string	"outer_fn"
	.quad	.Lmain
	.quad	.Lmain_end - .Lmain
	.uleb128 2		/* nested inside outer's range */
	.string	"nested_fn"
	.quad	.Lnested
	.quad	.Lnested_end - .Lnested
	.uleb128 4
	.long	.Ldie_inl - .Linfo
	.quad	.Linl
	.quad	.Linl_end - .Linl
	.byte	1
	.byte	20
	.byte	0		/* end of nested_fn */
	.byte	0		/* end of outer_fn */
	.uleb128 2		/* identical code folding: two functions, one range */
	.string	"twin_a"
	.quad	.Ltwin
	.quad	.Ltwin_end - .Ltwin
	.uleb128 4
	.long	.Ldie_inl - .Linfo
	.quad	.Ltwin_inl
	.quad	.Ltwin_inl_end - .Ltwin_inl
	.byte	1
	.byte	40
	.byte	0		/* end of twin_a */
	.uleb128 5
	.string	"twin_b"
	.quad	.Ltwin
	.quad	.Ltwin_end - .Ltwin
.Ldie_inl:
	.uleb128 3
	.string	"inlined_fn"
	.byte	1		/* DW_INL_inlined */
	.byte	0		/* end of the unit */
.Linfo_end:

	.section	.debug_line,"",@progbits
.Lline:
	.section	.note.GNU-stack,"",@progbits
