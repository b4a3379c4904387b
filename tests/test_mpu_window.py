"""The window rtbench keeps Zephyr's MPU driver out of (kernels/zephyr/mpu_window.py):
one 1 KiB page in every 64 KiB, the page whose QEMU TLB entry the MPU's
registers (0xE000EC00) use; the pad that moves a driver out of it."""

from rtbench.kernels.zephyr import mpu_window as w


def test_the_collision_is_one_page_in_every_64_kib():
    assert w.collides([(0xEC00, 0xEC04)]) and w.collides([(0x1EFFC, 0x1F000)])
    assert w.collides([(0xEA00, 0xEC01)])  # a function that runs into the page
    assert not w.collides([(0xE000, 0xEC00)]) and not w.collides([(0xF000, 0xF400)])


def test_a_pad_moves_every_function_past_the_page_and_no_further():
    spans = [(0xEA84, 0xEA9C), (0xECF4, 0xEDA8), (0xEDA8, 0xF02C)]
    pad = w.pad_for(spans)
    assert pad % w.ALIGN == 0 and not w.collides(spans, pad) and w.collides(spans, pad - w.ALIGN)
    assert w.pad_for([(0x9000, 0x9400)]) == 0
