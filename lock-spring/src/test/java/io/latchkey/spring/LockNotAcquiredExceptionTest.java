package io.latchkey.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockNotAcquiredExceptionTest {

    @Test
    void aSerializedExceptionKeepsItsLockNameAndWait() throws Exception {
        LockNotAcquiredException sent = new LockNotAcquiredException("orders:42", Duration.ofMillis(1500), null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(sent);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            LockNotAcquiredException received = (LockNotAcquiredException) in.readObject();
            assertEquals("orders:42", received.lockName());
            assertEquals(Duration.ofMillis(1500), received.waitTime(), "waitTime() is documented never null");
            assertEquals(sent.getMessage(), received.getMessage());
        }
    }
}
