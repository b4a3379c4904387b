/*
 * Pipes (DSP/BIOS PIP). A DSP/BIOS pipe is a ring of frames that writer and
 * reader claim in place: PIP_alloc claims an empty frame, PIP_put hands it
 * over full (and runs the reader's notify function), PIP_get claims a full
 * frame, PIP_free recycles it, PIP_peek reads the next frame's size and
 * address. A byte pipe (Linux pipe(2)) answers the hand-over only: a write
 * of one frame puts it into the pipe and readies its reader (PIP_put), a
 * read takes one full frame out (PIP_get) -- with the frame's bytes copied,
 * which PIP does not do, so the frame is small (16 bytes). Claiming,
 * recycling and peeking at frames in place need a frame pipe
 * (RTB_CAP_FRAME_PIPE): in a byte pipe the kernel owns the buffer.
 */
#include <rtb/bench.h>

#define PIPE 0
#define FRAME 16

static unsigned char frame_out[FRAME] = "rtbench-frame-16", frame_in[FRAME];

static void put_frame(struct rtb_ctx *ctx)
{
    struct rtb_kcall write;
    if (!rtb_ok(ctx, rtb_port_pipe_create(PIPE), "pipe_create"))
        return;
    if (rtb_ok(ctx, rtb_port_pipe_write_kcall(PIPE, frame_out, FRAME, RTB_NO_WAIT, &write), "pipe_write")) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_time_kcall(ctx, &write, RTB_OK), "pipe_write") ||
                !rtb_ok(ctx, rtb_port_pipe_read(PIPE, frame_in, FRAME, RTB_NO_WAIT), "pipe_read"))
                break;
        }
    }
    rtb_port_pipe_delete(PIPE);
}

static void get_frame(struct rtb_ctx *ctx)
{
    struct rtb_kcall read;
    if (!rtb_ok(ctx, rtb_port_pipe_create(PIPE), "pipe_create"))
        return;
    if (rtb_ok(ctx, rtb_port_pipe_read_kcall(PIPE, frame_in, FRAME, RTB_NO_WAIT, &read), "pipe_read")) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_port_pipe_write(PIPE, frame_out, FRAME, RTB_NO_WAIT), "pipe_write") ||
                !rtb_ok(ctx, rtb_time_kcall(ctx, &read, RTB_OK), "pipe_read"))
                break;
        }
    }
    rtb_port_pipe_delete(PIPE);
}

static void frame_pipe(struct rtb_ctx *ctx)
{
    rtb_unsupported(ctx, "the porting layer has no frame pipes (in-place frames)");
}

const struct rtb_metric rtb_pipe_metrics[] = {
    {"pipe.write.frame", put_frame, RTB_CAP_PIPE, 0},
    {"pipe.read.frame", get_frame, RTB_CAP_PIPE, 0},
    {"pipe.alloc.frame", frame_pipe, RTB_CAP_PIPE | RTB_CAP_FRAME_PIPE, 0},
    {"pipe.free.frame", frame_pipe, RTB_CAP_PIPE | RTB_CAP_FRAME_PIPE, 0},
    {"pipe.peek.frame", frame_pipe, RTB_CAP_PIPE | RTB_CAP_FRAME_PIPE, 0},
    {0, 0, 0, 0},
};
