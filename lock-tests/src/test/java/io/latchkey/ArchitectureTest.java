package io.latchkey;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture that DESIGN.md describes and the house rules of the main code, as tests over
 * the compiled classes of lock-core, lock-fair and lock-redlock: a change that breaks one fails
 * here, naming the class and the line, instead of waiting for a reviewer.
 */
@TimingBound
class ArchitectureTest {

    private static final String FAIR = "io.latchkey.internal.fair..";
    private static final String REDLOCK = "io.latchkey.redlock..";
    /** The three modules' classes, as a class directory or a jar: scanning every jar on the class path is slow. */
    private static final java.util.regex.Pattern OURS = java.util.regex.Pattern.compile("lock-(core|fair|redlock)");
    private static JavaClasses main;
    private static final DescribedPredicate<JavaClass> API_WAYS_IN = DescribedPredicate.describe("the factory or the redaction",
            type -> type.getName().equals("io.latchkey.internal.client.DefaultLockClient")
                    || type.getName().equals("io.latchkey.internal.redis.Redaction"));
    /** The SPI's bridges to lock-core's facade, failure wording and cohorts, which serve the kinds without showing them any of these. */
    private static final DescribedPredicate<JavaClass> SPI_WAYS_IN = DescribedPredicate.describe("the facade, the failure wording or the cohorts",
            type -> type.getName().equals("io.latchkey.spi.LockFacades") || type.getName().equals("io.latchkey.spi.KindFailures")
                    || type.getName().equals("io.latchkey.spi.LocalHandOffs"));

    @BeforeAll
    static void importMainCode() {
        // From jars as well as class directories: in a reactor's verify, the modules come as jars.
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // A module's test jar (lock-core's, for its test fakes) is not main code: in a
                // reactor's verify it comes as a jar, which DO_NOT_INCLUDE_TESTS does not recognise.
                .withImportOption(location -> OURS.matcher(location.toString()).find()
                        && !location.toString().contains("-tests.jar"))
                .importPackages("io.latchkey")
                .that(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("io.latchkey.testing..")));
        // Rules over no classes pass vacuously: make sure all three modules were found.
        for (String probe : new String[] {"io.latchkey.internal.client.DefaultLockClient",
                "io.latchkey.internal.fair.FairLockProtocol", "io.latchkey.redlock.RedLock"}) {
            if (!main.contain(probe)) {
                throw new AssertionError("not imported: " + probe);
            }
        }
    }

    @Test
    void theInternalPackagesDependOnEachOtherWithoutCycles() {
        slices().matching("io.latchkey.internal.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void noPackageDependsOnAnotherInACycle() {
        // Every package, the API's too, apart from the API's two ways in (its factory and the
        // redaction of addresses), which the rule below keeps to those two, and the SPI's three
        // bridges into the internals (LockFacades serves a kind's protocol with the one facade,
        // KindFailures words and types failures as lock-core does, LocalHandOffs gives a
        // composite of plain locks the cohorts), which a kind calls instead of reaching the
        // internal classes behind them.
        slices().matching("io.(**)").should().beFreeOfCycles()
                .ignoreDependency(JavaClass.Predicates.resideInAPackage("io.latchkey"), API_WAYS_IN)
                .ignoreDependency(SPI_WAYS_IN, JavaClass.Predicates.resideInAPackage("io.latchkey.internal.."))
                .check(main);
    }

    @Test
    void theKindsInOtherModulesReachLockCoreOnlyThroughTheSpiAndThePublicApi() {
        // Also on the class path, where nothing enforces the exports: lock-core exports only the
        // API and the SPI, so no class of lock-core's internal packages may be reached from a kind.
        String[] kinds = {FAIR, REDLOCK};
        noClasses().that().resideInAnyPackage(kinds)
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.latchkey..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAnyPackage(kinds)))
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAnyPackage("io.latchkey",
                                "io.latchkey.spi"))))
                .check(main);
    }

    @Test
    void lockCoreKnowsNeitherTheFairLockNorRedLock() {
        // DESIGN.md: LockClient must not depend on lock-fair or lock-redlock at compile time;
        // they register themselves as services.
        noClasses().that().resideOutsideOfPackages(FAIR, REDLOCK)
                .should().dependOnClassesThat().resideInAnyPackage(FAIR, REDLOCK).check(main);
        noClasses().that().resideInAPackage(FAIR).should().dependOnClassesThat().resideInAPackage(REDLOCK).check(main);
        noClasses().that().resideInAPackage(REDLOCK).should().dependOnClassesThat().resideInAPackage(FAIR).check(main);
    }

    @Test
    void noLayerBelowTheCohortKnowsIt() {
        // Apart from the SPI's bridge that gives a composite of plain locks (RedLock) the cohorts.
        noClasses().that().resideInAnyPackage("io.latchkey.internal.lock..", "io.latchkey.spi..",
                        "io.latchkey.internal.redis..", "io.latchkey.internal.watchdog..", "io.latchkey.internal.wakeup..",
                        "io.latchkey.internal.time..")
                .and(DescribedPredicate.not(SPI_WAYS_IN))
                .should().dependOnClassesThat().resideInAPackage("io.latchkey.internal.cohort..").check(main);
    }

    @Test
    void thePublicApiReachesTheInternalsOnlyThroughTheFactoryAndTheRedaction() {
        // Issue 26 would have the API depend on nothing internal: these two remain until the
        // client is found as a service.
        noClasses().that().resideInAPackage("io.latchkey")
                .should().dependOnClassesThat(DescribedPredicate.and(
                        JavaClass.Predicates.resideInAPackage("io.latchkey.internal.."),
                        DescribedPredicate.not(API_WAYS_IN)))
                .check(main);
    }

    @Test
    void noThreadSleepsAndNoWallClockInMainCode() {
        // Waits are by message and the client's timer; time is the client's ticker (System.nanoTime).
        noClasses().should().callMethod(Thread.class, "sleep", long.class)
                .orShould().callMethod(Thread.class, "sleep", long.class, int.class)
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(Instant.class, "now")
                .orShould().callMethod(Clock.class, "systemUTC")
                .orShould().callMethod(Clock.class, "systemDefaultZone")
                .check(main);
    }
}
