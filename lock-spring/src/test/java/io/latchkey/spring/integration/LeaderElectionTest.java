package io.latchkey.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.spring.LatchkeyAutoConfiguration;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's leader election on Latchkey's lock registry, with two application
 * contexts as two nodes against one real Redis: one leads at a time; when the leader's lease is
 * lost, it is told so and the other node takes over.
 */
class LeaderElectionTest {

    private static final String ROLE = "latchkey-test-leader";
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void theRegistryIsTheApplicationsLockRegistryAndItsLocksAreLatchkeys() {
        try (ConfigurableApplicationContext node = node("solo")) {
            LockRegistry<?> registry = node.getBean(LockRegistry.class);
            assertThat(registry).isInstanceOf(LatchkeyLockRegistry.class);
            var lock = registry.obtain("orders:7");
            lock.lock();
            try {
                assertThat(node.getBean(LockClient.class).getLock("orders:7").isHeldByCurrentThread()).isTrue();
            } finally {
                lock.unlock();
            }
        }
    }

    @Test
    void whenTheLeadersLeaseIsLostTheOtherNodeTakesOverAndTheOldLeaderIsRevoked() {
        try (ConfigurableApplicationContext first = node("first")) {
            Events firstEvents = first.getBean(Events.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> firstEvents.list.contains("granted first"));
            try (ConfigurableApplicationContext second = node("second")) {
                Events secondEvents = second.getBean(Events.class);
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                        .until(() -> secondEvents.list.isEmpty());

                // The leader's hold disappears from Redis, as when its lease ran out during a pause.
                assertThat(second.getBean(LockClient.class).getLock(ROLE).forceUnlock()).isTrue();

                await().atMost(Duration.ofSeconds(10)).until(() -> secondEvents.list.contains("granted second"));
                await().atMost(Duration.ofSeconds(10)).until(() -> firstEvents.list.contains("revoked first"));
                assertThat(first.getBean(LockRegistryLeaderInitiator.class).getContext().isLeader()).isFalse();
                assertThat(second.getBean(LockRegistryLeaderInitiator.class).getContext().isLeader()).isTrue();
            }
        }
    }

    private static ConfigurableApplicationContext node(String id) {
        return new SpringApplicationBuilder(Node.class).web(WebApplicationType.NONE)
                .bannerMode(org.springframework.boot.Banner.Mode.OFF).logStartupInfo(false)
                .properties("latchkey.address=" + redis.uri(), "latchkey.watchdog-timeout=3s", "node.id=" + id).run();
    }

    /** What the node's candidate was told, in order. */
    static final class Events {
        final List<String> list = new CopyOnWriteArrayList<>();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({LatchkeyAutoConfiguration.class, LatchkeyIntegrationAutoConfiguration.class})
    static class Node {

        @Bean
        Events events() {
            return new Events();
        }

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> registry, Events events,
                                                    org.springframework.core.env.Environment environment) {
            String id = environment.getRequiredProperty("node.id");
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, new Candidate() {
                @Override
                public String getRole() {
                    return ROLE;
                }

                @Override
                public String getId() {
                    return id;
                }

                @Override
                public void onGranted(Context context) {
                    events.list.add("granted " + id);
                }

                @Override
                public void onRevoked(Context context) {
                    events.list.add("revoked " + id);
                }
            });
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(100);
            return initiator;
        }
    }
}
