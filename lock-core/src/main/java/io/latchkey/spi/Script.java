package io.latchkey.spi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A Lua script read once from a {@code .lua} resource, with the SHA-1 that Redis knows it by.
 * Immutable.
 */
public final class Script {

    private final String name;
    private final String text;
    private final String sha1;

    private Script(String name, String text) {
        this.name = name;
        this.text = text;
        this.sha1 = sha1Hex(text);
    }

    /**
     * Reads a script that sits beside {@code anchor} in the same package.
     *
     * @param anchor a class in the script's package
     * @param fileName the resource's file name, e.g. {@code "acquire.lua"}
     * @return the script
     * @throws IllegalStateException if the resource is missing: a packaging error
     */
    public static Script load(Class<?> anchor, String fileName) {
        Objects.requireNonNull(anchor, "anchor");
        try (InputStream in = anchor.getResourceAsStream(fileName)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + fileName + " beside " + anchor.getName());
            }
            return new Script(fileName, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + fileName, e);
        }
    }

    /** @return the file name, for messages */
    public String name() {
        return name;
    }

    /** @return the Lua source */
    public String text() {
        return text;
    }

    /** @return the lowercase hex SHA-1 of the source, as EVALSHA wants it */
    public String sha1() {
        return sha1;
    }

    private static String sha1Hex(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM ships SHA-1", e);
        }
    }

    @Override
    public String toString() {
        return name + '@' + sha1.substring(0, 8);
    }
}
