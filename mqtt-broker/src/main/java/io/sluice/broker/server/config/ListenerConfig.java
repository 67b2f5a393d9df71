package io.sluice.broker.server.config;

import java.net.InetSocketAddress;

/**
 * One MQTT listener, {@code listeners.<name> { bind }}.
 *
 * @param name the listener's name: {@code tcp}
 * @param bind the address to listen on
 */
public record ListenerConfig(String name, InetSocketAddress bind) {
}
