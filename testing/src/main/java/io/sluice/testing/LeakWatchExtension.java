package io.sluice.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Registered for every test class through {@code META-INF/services} and
 * {@code junit-platform.properties}: installs {@link LeakWatch} before the first test touches a
 * Netty buffer, and fails a test class that leaked one.
 */
public final class LeakWatchExtension implements AfterAllCallback {
    public LeakWatchExtension() {
        LeakWatch.install();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        LeakWatch.assertNoLeaks();
    }
}
