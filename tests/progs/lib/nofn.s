# nofn.s: a function written in assembly without a .type directive, so that the library's
# debug information has a compile unit with no function in it (the reader sorted that
# unit's empty function vector with qsort(NULL, 0), undefined behaviour).
	.text
	.globl	nofn_alloc
nofn_alloc:
	subq	$8, %rsp
	call	malloc@PLT
	addq	$8, %rsp
	ret
	.section	.note.GNU-stack,"",@progbits
