/* The first call of any MPI function through the preload shim: saves the
   argument registers (integer, vector, and %al of variadic calls), asks
   mpidle_preload_resolve (preload.c) for the function's target, restores them and
   jumps there, so that the target sees the call exactly as the program made it.
   x86-64 System V; %r11 (the function's index) is a scratch register no call
   passes anything in. */
	.section .note.GNU-stack,"",@progbits
	.text
	.globl mpidle_preload_enter
	.hidden mpidle_preload_enter
	.type mpidle_preload_enter, @function
	.p2align 4
mpidle_preload_enter:
	push %rbp
	mov %rsp, %rbp
	sub $192, %rsp
	mov %rdi, 0(%rsp)
	mov %rsi, 8(%rsp)
	mov %rdx, 16(%rsp)
	mov %rcx, 24(%rsp)
	mov %r8, 32(%rsp)
	mov %r9, 40(%rsp)
	mov %rax, 48(%rsp)
	movdqa %xmm0, 64(%rsp)
	movdqa %xmm1, 80(%rsp)
	movdqa %xmm2, 96(%rsp)
	movdqa %xmm3, 112(%rsp)
	movdqa %xmm4, 128(%rsp)
	movdqa %xmm5, 144(%rsp)
	movdqa %xmm6, 160(%rsp)
	movdqa %xmm7, 176(%rsp)
	mov %r11d, %edi
	call mpidle_preload_resolve
	mov %rax, %r11
	mov 0(%rsp), %rdi
	mov 8(%rsp), %rsi
	mov 16(%rsp), %rdx
	mov 24(%rsp), %rcx
	mov 32(%rsp), %r8
	mov 40(%rsp), %r9
	mov 48(%rsp), %rax
	movdqa 64(%rsp), %xmm0
	movdqa 80(%rsp), %xmm1
	movdqa 96(%rsp), %xmm2
	movdqa 112(%rsp), %xmm3
	movdqa 128(%rsp), %xmm4
	movdqa 144(%rsp), %xmm5
	movdqa 160(%rsp), %xmm6
	movdqa 176(%rsp), %xmm7
	leave
	jmp *%r11
	.size mpidle_preload_enter, .-mpidle_preload_enter
