package io.latchkey.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The rules for lock names, below Redis. */
class LockNamesTest {

    @Test
    void ordinaryNamesPassUnchanged() {
        for (String name : new String[] {"orders:42", "{tenant}:job", "a}b", "ünïcødé", "pair-\uD83D\uDD12", "latchkey", "x:latchkey:y"}) {
            assertEquals(name, LockNames.require(name));
        }
        assertEquals(1024, LockNames.require("n".repeat(1024)).length());
    }

    @Test
    void theMessageQuotesAtMostTheStartOfTheNameWithEveryControlCharacterEscaped() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> LockNames.require("evil\r\nname" + "z".repeat(200)));
        assertTrue(refused.getMessage().contains("U+000D at index 4"), refused.getMessage());
        assertTrue(refused.getMessage().contains("'evil\\u000D\\u000Aname"), refused.getMessage());
        assertTrue(refused.getMessage().endsWith("'…"), refused.getMessage());
    }

    @Test
    void aPairCutAtTheEndOrReversedIsALoneSurrogate() {
        assertThrows(IllegalArgumentException.class, () -> LockNames.require("end\uD83D"));
        assertThrows(IllegalArgumentException.class, () -> LockNames.require("rev\uDD12\uD83D"));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> LockNames.require("a\uD800b"));
        assertTrue(refused.getMessage().contains("U+D800 at index 1"), refused.getMessage());
    }

    @Test
    void onlyTheLibrarysPrefixIsReserved() {
        assertThrows(IllegalArgumentException.class, () -> LockNames.require("latchkey:anything"));
        assertEquals("Latchkey:case-differs", LockNames.require("Latchkey:case-differs"));
    }

    @Test
    void theClientsPrefixIsReservedAndSoIsTheDefaultOne() {
        IllegalArgumentException own = assertThrows(IllegalArgumentException.class, () -> LockNames.require("billing:fence:{0}", "billing"));
        assertTrue(own.getMessage().contains("'billing:'"), own.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LockNames.require("latchkey:{x}:channel", "billing"));
        assertEquals("billing", LockNames.require("billing", "billing"));
        assertEquals("billing-2:x", LockNames.require("billing-2:x", "billing"));
        assertEquals("appb:x", LockNames.require("appb:x", "appa"), "another application's prefix is its ACL's to guard");
    }
}
