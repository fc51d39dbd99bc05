package io.latchkey.spring;

import io.latchkey.LockConfig;
import java.util.List;
import java.util.regex.Pattern;

/** Where a client's Redis is, in words for the health details: URIs without their credentials. */
final class RedisTarget {

    private static final Pattern CREDENTIALS = Pattern.compile("//[^@/]*@");

    private RedisTarget() {
    }

    static String describe(LockConfig config) {
        if (config.address().isPresent()) {
            return redact(config.address().get());
        }
        if (!config.clusterAddresses().isEmpty()) {
            return "cluster " + redact(config.clusterAddresses());
        }
        return "redlock " + redact(config.redLockAddresses());
    }

    private static String redact(List<String> uris) {
        return uris.stream().map(RedisTarget::redact).toList().toString();
    }

    static String redact(String uri) {
        return CREDENTIALS.matcher(uri).replaceFirst("//***@");
    }
}
