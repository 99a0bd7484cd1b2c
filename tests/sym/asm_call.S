/*
 * Symbolization fixture: a hand-written function with call frame
 * information but no DWARF debug info (assembled without -g), so that only
 * a symbol table names it. fixture_asm_call(fn) calls fn().
 */
	.text
	.globl	fixture_asm_call
	.type	fixture_asm_call, @function
fixture_asm_call:
	.cfi_startproc
#if defined(__aarch64__)
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	blr	x0
	nop
	ldp	x29, x30, [sp], 16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
#elif defined(__x86_64__)
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	call	*%rdi
	nop
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
#else
#error "asm_call.S: no fixture for this architecture"
#endif
	.cfi_endproc
	.size	fixture_asm_call, .-fixture_asm_call
	.section .note.GNU-stack,"",@progbits
