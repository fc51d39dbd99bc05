package io.latchkey;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** The one check every {@link LockConfig} setting makes: a message naming the setting and the value. */
final class SettingChecks {

    private SettingChecks() {
    }

    /**
     * @throws IllegalArgumentException with the message {@code template} filled with {@code args},
     *     if {@code condition} is false
     */
    static void requireArgument(boolean condition, String template, @Nullable Object... args) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, template, args));
        }
    }
}
