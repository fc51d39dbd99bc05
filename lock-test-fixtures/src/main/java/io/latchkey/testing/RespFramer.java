package io.latchkey.testing;

import java.util.Arrays;

/**
 * Follows a stream of RESP bytes, one byte at a time, and tells where each top-level message
 * begins and ends, without keeping the bytes. {@link FaultProxy} runs one over each direction of
 * a connection to pair the n-th command with the n-th reply, so that a pipelining client's
 * earlier replies pass and exactly the chosen one is dropped.
 *
 * <p>Understands RESP2 and RESP3 (as {@code HELLO 3} switches to) and inline commands. A RESP3
 * push ({@code >}) or attribute ({@code |}) is not counted as a message, since neither answers a
 * command. Redis never sends RESP3's streamed strings ({@code $?}), so they are not handled. Not
 * thread-safe: each direction has its own framer, used by one thread.
 */
final class RespFramer {

    private static final byte PUSH = '>';
    private static final byte ATTRIBUTE = '|';

    private enum State { TYPE, LINE, PAYLOAD, INLINE }

    private State state = State.TYPE;
    private byte type;
    private long number;
    private boolean negative;
    private long payloadLeft;
    private int inlineLength;
    private boolean counted;
    private long messages;

    // The open aggregates, innermost last: elements still to come, and whether it is an attribute.
    private long[] remaining = new long[8];
    private boolean[] attribute = new boolean[8];
    private int depth;

    /** @return true if the next byte fed begins a new top-level message */
    boolean atMessageStart() {
        return state == State.TYPE && depth == 0;
    }

    /** @return how many top-level messages, pushes and attributes aside, have ended so far */
    long messages() {
        return messages;
    }

    /**
     * @param b the next byte of the stream
     * @return true if it ended a counted top-level message
     */
    boolean feed(byte b) {
        switch (state) {
            case TYPE:
                return typeByte(b);
            case LINE:
                if (b == '\n') {
                    return lineEnded();
                }
                if (b == '-') {
                    negative = true;
                } else if (b >= '0' && b <= '9') {
                    number = number * 10 + (b - '0');
                }
                return false;
            case PAYLOAD:
                if (--payloadLeft == 0) {
                    state = State.TYPE;
                    return elementEnded();
                }
                return false;
            case INLINE:
                return inline(b);
            default:
                throw new AssertionError(state);
        }
    }

    private boolean typeByte(byte b) {
        if (depth == 0) {
            counted = b != PUSH && b != ATTRIBUTE;
            if (!isRespType(b)) {
                // An inline command, as typed into telnet: one line is one command.
                state = State.INLINE;
                inlineLength = 0;
                return inline(b);
            }
        }
        type = b;
        number = 0;
        negative = false;
        state = State.LINE;
        return false;
    }

    private static boolean isRespType(byte b) {
        return "+-:$*_,#!=(%~|>".indexOf(b) >= 0;
    }

    private boolean inline(byte b) {
        if (b == '\n') {
            state = State.TYPE;
            // Redis skips empty lines without a reply.
            return inlineLength > 0 && messageEnded();
        }
        if (b != '\r') {
            inlineLength++;
        }
        return false;
    }

    private boolean lineEnded() {
        state = State.TYPE;
        long n = negative ? -number : number;
        switch (type) {
            case '$':
            case '!':
            case '=':
                if (n < 0) {
                    return elementEnded();
                }
                payloadLeft = n + 2;
                state = State.PAYLOAD;
                return false;
            case '*':
            case '~':
            case '>':
                return n <= 0 ? elementEnded() : open(n, false);
            case '%':
                return n <= 0 ? elementEnded() : open(2 * n, false);
            case '|':
                // An empty attribute is no element either: its value still follows.
                return n > 0 && open(2 * n, true);
            default:
                return elementEnded();
        }
    }

    private boolean open(long elements, boolean isAttribute) {
        if (depth == remaining.length) {
            remaining = Arrays.copyOf(remaining, depth * 2);
            attribute = Arrays.copyOf(attribute, depth * 2);
        }
        remaining[depth] = elements;
        attribute[depth] = isAttribute;
        depth++;
        return false;
    }

    /** One element is complete: it may complete its aggregates, and they the message. */
    private boolean elementEnded() {
        while (depth > 0) {
            if (--remaining[depth - 1] > 0) {
                return false;
            }
            depth--;
            if (attribute[depth]) {
                // An attribute annotates the element after it and is not one of its parent's.
                return false;
            }
        }
        return messageEnded();
    }

    private boolean messageEnded() {
        if (counted) {
            messages++;
            return true;
        }
        return false;
    }
}
