/* Bare-metal start for QEMU's mps2-an386 (Cortex-M4F): copy .data, clear .bss, enable the FPU,
   run main, exit through semihosting with its status. */
#include <stdlib.h>

extern unsigned __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_top;
extern int main(void);

void reset_handler(void) {
    unsigned *src = &__data_load, *dst = &__data_start;
    while (dst < &__data_end) *dst++ = *src++;
    for (dst = &__bss_start; dst < &__bss_end; dst++) *dst = 0;
    *(volatile unsigned *)0xE000ED88 |= 0xFu << 20; /* CPACR: CP10 and CP11, the FPU */
    __asm__ volatile("dsb\n\tisb");
    exit(main());
}

/* A fault ends the run with a failure the host sees. */
static void fault_handler(void) { exit(70); }

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))&__stack_top, reset_handler, fault_handler, fault_handler, fault_handler,
    fault_handler, fault_handler, 0, 0, 0, 0, fault_handler, fault_handler, 0, fault_handler, fault_handler,
};

/* exit's destructor walk calls _fini; there are none here. */
void _fini(void) {}
