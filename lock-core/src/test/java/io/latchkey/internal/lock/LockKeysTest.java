package io.latchkey.internal.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The keys of a lock stay in its Cluster slot and belong to it alone, whatever braces its name
 * holds; plain names keep the layout of 0.1. Slots are computed as Redis does, on UTF-8 bytes
 * (Lettuce's {@link SlotHash}); ClusterLockTest asks a real cluster for the same.
 */
class LockKeysTest {

    private static final List<String> SUFFIXES = List.of("channel", "queue", "timeouts");

    /** Every name of up to six characters over braces, a letter and a non-ASCII letter. */
    private static Set<String> everyShortName() {
        String alphabet = "{}a\u00fc";
        Set<String> names = new LinkedHashSet<>(List.of(""));
        List<String> previous = List.of("");
        for (int length = 1; length <= 6; length++) {
            List<String> longer = new ArrayList<>();
            for (String prefix : previous) {
                for (char c : alphabet.toCharArray()) {
                    longer.add(prefix + c);
                }
            }
            names.addAll(longer);
            previous = longer;
        }
        names.addAll(List.of("job}1", "order-{}x", "}{x}", "a{b}c", "{{}}", "{a}b}", "orders:42",
                "z\u00e4hler}\u00fc", "{\u00fc}\u00e4", "\u65e5\u672c}", "latchkey:{x}:channel"));
        return names;
    }

    private static int slotOf(String key) {
        return SlotHash.getSlot(key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everyKeyOfAnyNameIsInTheSlotOfTheLock() {
        for (String name : everyShortName()) {
            LockKeys keys = LockKeys.of(name);
            assertEquals(name, keys.lock());
            for (String suffix : SUFFIXES) {
                String key = keys.derived(suffix);
                assertEquals(slotOf(name), slotOf(key), () -> key + " is in the slot of '" + name + "'");
            }
            assertEquals(slotOf(name), slotOf(keys.tag()), () -> "the tag of '" + name + "' hashes to its slot");
        }
    }

    @Test
    void distinctNamesNeverShareAKey() {
        Map<String, String> owners = new HashMap<>();
        for (String name : everyShortName()) {
            for (String suffix : SUFFIXES) {
                String key = LockKeys.of(name).derived(suffix);
                String before = owners.put(key, name);
                assertTrue(before == null, () -> key + " is a key of '" + before + "' and of '" + name + "'");
            }
        }
    }

    @Test
    void plainNamesKeepTheLayoutOfVersion01() {
        assertEquals("latchkey:{orders:42}:channel", LockKeys.of("orders:42").channel());
        assertEquals("latchkey:{orders:42}:queue", LockKeys.of("orders:42").derived("queue"));
        assertEquals("latchkey:{a{b}:timeouts", LockKeys.of("a{b").derived("timeouts"));
        assertEquals("latchkey:{{}:channel", LockKeys.of("{").channel());
    }

    @Test
    void namesWithAHashTagSpellTheNameOutAfterTheTag() {
        assertEquals("latchkey:{user1}:{user1}:orders:queue", LockKeys.of("{user1}:orders").derived("queue"));
        assertEquals("latchkey:{x}:}{x}:channel", LockKeys.of("}{x}").channel());
        assertNotEquals(LockKeys.of("{user1}:orders").channel(), LockKeys.of("{user1}:payments").channel());
        assertNotEquals(LockKeys.of("user1").channel(), LockKeys.of("{user1}").channel());
    }

    /** The tags below are part of the data layout: every client must derive the same keys. */
    @Test
    void namesWithABraceButNoHashTagUseTheShortTagOfTheirSlot() {
        assertEquals("latchkey:{2c}:job}1:channel", LockKeys.of("job}1").channel());
        assertEquals("latchkey:{0Hw}:order-{}x:queue", LockKeys.of("order-{}x").derived("queue"));
        assertEquals("latchkey:{06S}::channel", LockKeys.of("").channel());
    }

    @Test
    void everySlotHasATagOfAtMostThreeLettersOrDigitsThatHashesToIt() {
        for (int slot = 0; slot < SlotTags.SLOTS; slot++) {
            String tag = SlotTags.of(slot);
            assertTrue(tag.matches("[0-9A-Za-z]{1,3}"), tag);
            assertEquals(slot, slotOf(tag), tag);
        }
    }

    @Test
    void slotTagsAreTheShortestAndFirstInAsciiOrder() {
        String alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        Map<Integer, String> first = new HashMap<>();
        for (char c : alphabet.toCharArray()) {
            first.putIfAbsent(slotOf(String.valueOf(c)), String.valueOf(c));
        }
        for (char c : alphabet.toCharArray()) {
            for (char d : alphabet.toCharArray()) {
                first.putIfAbsent(slotOf("" + c + d), "" + c + d);
            }
        }
        first.forEach((slot, tag) -> assertEquals(tag, SlotTags.of(slot), "slot " + slot));
    }

    @Test
    void suffixesThatCouldMakeTheKeysOfTwoLocksCoincideAreRejected() {
        LockKeys keys = LockKeys.of("orders");
        for (String suffix : List.of("", "a:b", "{x}", "}")) {
            assertThrows(IllegalArgumentException.class, () -> keys.derived(suffix), suffix);
        }
    }

    @Test
    void aKeyPrefixReplacesLatchkeyInEveryDerivedKeyAndTheCounterButNotInTheLockHash() {
        LockKeys keys = LockKeys.of("orders:42", "appa");
        assertEquals("orders:42", keys.lock());
        assertEquals("appa:{orders:42}:channel", keys.channel());
        assertEquals("appa:{orders:42}:waiting", keys.waitingMark());
        assertEquals("appa:{orders:42}:turn", keys.turn());
        assertEquals("appa:{orders:42}:queue", keys.derived("queue"));
        assertEquals("appa:fence:{" + SlotTags.of(slotOf("orders:42")) + "}", keys.fenceCounter());
        assertEquals("team:a:{user1}:{user1}:orders:queue", LockKeys.of("{user1}:orders", "team:a").derived("queue"));
        assertEquals("appa:{2c}:job}1:channel", LockKeys.of("job}1", "appa").channel());
        assertEquals(LockKeys.of("orders:42").channel(), LockKeys.of("orders:42", LockKeys.DEFAULT_PREFIX).channel());
    }

    @Test
    void underAnyPrefixEveryKeyIsInTheSlotOfTheLockAndDistinctNamesShareNone() {
        for (String prefix : List.of("appa", "team:a", "\u00fc-\uD83D\uDD12")) {
            Map<String, String> owners = new HashMap<>();
            for (String name : everyShortName()) {
                LockKeys keys = LockKeys.of(name, prefix);
                assertEquals(slotOf(name), slotOf(keys.fenceCounter()), () -> keys.fenceCounter() + " is in the slot of '" + name + "'");
                assertTrue(keys.fenceCounter().startsWith(prefix + ":fence:{"), keys.fenceCounter());
                for (String suffix : SUFFIXES) {
                    String key = keys.derived(suffix);
                    assertTrue(key.startsWith(prefix + ":{"), key);
                    assertEquals(slotOf(name), slotOf(key), () -> key + " is in the slot of '" + name + "'");
                    String before = owners.put(key, name);
                    assertTrue(before == null, () -> key + " is a key of '" + before + "' and of '" + name + "'");
                }
            }
        }
    }
}
