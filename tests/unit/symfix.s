# symfix.s: symbols that overlap, for tests/unit/test_symbolize.c: labels (no size) sharing an
# address with other labels of each binding, a sized function nested in another of each
# binding, and 40 global aliases of one function (identical code folding gives libraries many).
# Which one names an address depends on libdwfl's scan order; the test compares every byte.
	.text
	.globl gl_a
	.type gl_a,@function
gl_a:
loc_a:
	nop
	nop
	ret
	.globl gl_b1
	.globl gl_b2
gl_b1:
gl_b2:
	nop
	ret
	.weak wk_c
wk_c:
	.globl gl_c
gl_c:
	nop
	ret
loc_d:
	.globl gl_d
gl_d:
	nop
	ret
	.globl big
	.type big,@function
big:
	nop
	.type inner,@function
inner:
	nop
	nop
	.size inner, .-inner
	nop
	ret
	.size big, .-big
	.globl gw
	.type gw,@function
gw:
	nop
	.weak wnear
	.type wnear,@function
wnear:
	nop
	nop
	.size wnear, .-wnear
	nop
	ret
	.size gw, .-gw
	.weak wbig
	.type wbig,@function
wbig:
	nop
	.globl gin
	.type gin,@function
gin:
	nop
	.size gin, .-gin
	nop
	ret
	.size wbig, .-wbig
	.globl fold0
	.type fold0,@function
	.globl fold1
	.type fold1,@function
	.globl fold2
	.type fold2,@function
	.globl fold3
	.type fold3,@function
	.globl fold4
	.type fold4,@function
	.globl fold5
	.type fold5,@function
	.globl fold6
	.type fold6,@function
	.globl fold7
	.type fold7,@function
	.globl fold8
	.type fold8,@function
	.globl fold9
	.type fold9,@function
	.globl fold10
	.type fold10,@function
	.globl fold11
	.type fold11,@function
	.globl fold12
	.type fold12,@function
	.globl fold13
	.type fold13,@function
	.globl fold14
	.type fold14,@function
	.globl fold15
	.type fold15,@function
	.globl fold16
	.type fold16,@function
	.globl fold17
	.type fold17,@function
	.globl fold18
	.type fold18,@function
	.globl fold19
	.type fold19,@function
	.globl fold20
	.type fold20,@function
	.globl fold21
	.type fold21,@function
	.globl fold22
	.type fold22,@function
	.globl fold23
	.type fold23,@function
	.globl fold24
	.type fold24,@function
	.globl fold25
	.type fold25,@function
	.globl fold26
	.type fold26,@function
	.globl fold27
	.type fold27,@function
	.globl fold28
	.type fold28,@function
	.globl fold29
	.type fold29,@function
	.globl fold30
	.type fold30,@function
	.globl fold31
	.type fold31,@function
	.globl fold32
	.type fold32,@function
	.globl fold33
	.type fold33,@function
	.globl fold34
	.type fold34,@function
	.globl fold35
	.type fold35,@function
	.globl fold36
	.type fold36,@function
	.globl fold37
	.type fold37,@function
	.globl fold38
	.type fold38,@function
	.globl fold39
	.type fold39,@function
fold0:
fold1:
fold2:
fold3:
fold4:
fold5:
fold6:
fold7:
fold8:
fold9:
fold10:
fold11:
fold12:
fold13:
fold14:
fold15:
fold16:
fold17:
fold18:
fold19:
fold20:
fold21:
fold22:
fold23:
fold24:
fold25:
fold26:
fold27:
fold28:
fold29:
fold30:
fold31:
fold32:
fold33:
fold34:
fold35:
fold36:
fold37:
fold38:
fold39:
	nop
	nop
	ret
	.size fold0, .-fold0
	.size fold1, .-fold0
	.size fold2, .-fold0
	.size fold3, .-fold0
	.size fold4, .-fold0
	.size fold5, .-fold0
	.size fold6, .-fold0
	.size fold7, .-fold0
	.size fold8, .-fold0
	.size fold9, .-fold0
	.size fold10, .-fold0
	.size fold11, .-fold0
	.size fold12, .-fold0
	.size fold13, .-fold0
	.size fold14, .-fold0
	.size fold15, .-fold0
	.size fold16, .-fold0
	.size fold17, .-fold0
	.size fold18, .-fold0
	.size fold19, .-fold0
	.size fold20, .-fold0
	.size fold21, .-fold0
	.size fold22, .-fold0
	.size fold23, .-fold0
	.size fold24, .-fold0
	.size fold25, .-fold0
	.size fold26, .-fold0
	.size fold27, .-fold0
	.size fold28, .-fold0
	.size fold29, .-fold0
	.size fold30, .-fold0
	.size fold31, .-fold0
	.size fold32, .-fold0
	.size fold33, .-fold0
	.size fold34, .-fold0
	.size fold35, .-fold0
	.size fold36, .-fold0
	.size fold37, .-fold0
	.size fold38, .-fold0
	.size fold39, .-fold0
	.section .note.GNU-stack,"",@progbits
