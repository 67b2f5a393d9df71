package io.sluice.server;

/**
 * Sets up slf4j-simple, the binding the server ships with: level from {@code log.level}, ISO
 * timestamps with the thread name, and the chattiest libraries (Hadoop, Parquet, the Kafka bridge's
 * producer, which logs its whole configuration at INFO) held to WARN.
 * Must run before the first logger is created, because slf4j-simple reads these once.
 */
final class Logging {
    private Logging() {
    }

    static void configure(String level) {
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", level);
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");
        setDefault("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        setDefault("org.slf4j.simpleLogger.showThreadName", "true");
        setDefault("org.slf4j.simpleLogger.showShortLogName", "true");
        setDefault("org.slf4j.simpleLogger.log.org.apache.hadoop", "warn");
        setDefault("org.slf4j.simpleLogger.log.org.apache.hadoop.util.NativeCodeLoader", "error");
        setDefault("org.slf4j.simpleLogger.log.org.apache.parquet", "warn");
        setDefault("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
        setDefault("org.slf4j.simpleLogger.log.io.netty", "info");
    }

    /** A -D on the command line wins over the configuration file. */
    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
