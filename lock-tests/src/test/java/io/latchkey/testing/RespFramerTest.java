package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespFramerTest {

    @Test
    void pipelinedCommandsEndWhereEachArrayEnds() {
        String get = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
        String set = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\nv\r\nv\r\n";

        assertThat(messageEnds(get + set)).containsExactly(get.length(), get.length() + set.length());
    }

    @Test
    void everyResp2ReplyTypeIsOneMessage() {
        List<String> replies = List.of("+OK\r\n", "-ERR no\r\n", ":-12\r\n", "$-1\r\n", "$0\r\n\r\n", "$3\r\na\nb\r\n",
                "*-1\r\n", "*0\r\n", "*2\r\n*1\r\n:1\r\n$2\r\nhi\r\n");

        assertThat(messageEnds(String.join("", replies))).containsExactlyElementsOf(cumulativeLengths(replies));
    }

    @Test
    void everyResp3ReplyTypeIsOneMessage() {
        List<String> replies = List.of("_\r\n", ",3.14\r\n", "#t\r\n", "(12345678901234567890\r\n", "!3\r\nbad\r\n",
                "=7\r\ntxt:abc\r\n", "%2\r\n+a\r\n:1\r\n+b\r\n*1\r\n_\r\n", "~2\r\n+x\r\n+y\r\n", "%0\r\n");

        assertThat(messageEnds(String.join("", replies))).containsExactlyElementsOf(cumulativeLengths(replies));
    }

    @Test
    void pushesAndAttributesAreNotRepliesButTheValueAfterAnAttributeIs() {
        String push = ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n";
        String attributed = "|1\r\n+ttl\r\n:3\r\n*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n:2\r\n";

        RespFramer framer = new RespFramer();
        List<Integer> ends = feed(framer, push + attributed);

        assertThat(ends).containsExactly(push.length() + attributed.length());
        assertThat(framer.messages()).isEqualTo(1);
    }

    @Test
    void inlineCommandsAreOneLineEachAndEmptyLinesNone() {
        assertThat(messageEnds("PING\r\n\r\nECHO hi\n")).containsExactly(6, 16);
    }

    @Test
    void aMessageStartsOnlyBetweenMessages() {
        RespFramer framer = new RespFramer();
        assertThat(framer.atMessageStart()).isTrue();
        feed(framer, "*1\r\n$4\r\nPI");
        assertThat(framer.atMessageStart()).isFalse();
        feed(framer, "NG\r\n");
        assertThat(framer.atMessageStart()).isTrue();
    }

    private static List<Integer> messageEnds(String stream) {
        return feed(new RespFramer(), stream);
    }

    /** @return the offsets just past each byte that ended a message */
    private static List<Integer> feed(RespFramer framer, String stream) {
        byte[] bytes = stream.getBytes(StandardCharsets.ISO_8859_1);
        List<Integer> ends = new ArrayList<>();
        for (int i = 0; i < bytes.length; i++) {
            if (framer.feed(bytes[i])) {
                ends.add(i + 1);
            }
        }
        return ends;
    }

    private static List<Integer> cumulativeLengths(List<String> parts) {
        List<Integer> ends = new ArrayList<>();
        int end = 0;
        for (String part : parts) {
            end += part.length();
            ends.add(end);
        }
        return ends;
    }
}
