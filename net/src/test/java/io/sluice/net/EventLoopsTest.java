package io.sluice.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class EventLoopsTest {
    @Test
    void anIpv4AddressGetsAnIpv4SocketAndAcceptedChannelsHaveNoDelay() throws Exception {
        assumeTrue(Epoll.isAvailable() && Files.isReadable(Path.of("/proc/net/tcp")), "Linux with native epoll");
        try (EventLoops loops = new EventLoops(1)) {
            CompletableFuture<Boolean> noDelay = new CompletableFuture<>();
            Channel server = loops.serverBootstrap(new InetSocketAddress("127.0.0.1", 0))
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            noDelay.complete(ch.config().getOption(ChannelOption.TCP_NODELAY));
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port(server))) {
                int port = port(server);
                assertTrue(listensIn("/proc/net/tcp", port), "port " + port + " in the IPv4 socket table");
                assertEquals(false, listensIn("/proc/net/tcp6", port), "port " + port + " not in the IPv6 socket table");
                assertTrue(noDelay.get(10, TimeUnit.SECONDS), "TCP_NODELAY on the accepted channel");
            } finally {
                server.close().syncUninterruptibly();
            }
        }
    }

    @Test
    void anIpv6AddressKeepsTheIpv6Socket() throws Exception {
        assumeTrue(Epoll.isAvailable() && Files.isReadable(Path.of("/proc/net/tcp6")), "Linux with native epoll and IPv6");
        try (EventLoops loops = new EventLoops(1)) {
            InetSocketAddress any6 = new InetSocketAddress(InetAddress.getByName("::"), 0);
            Channel server = loops.serverBootstrap(any6)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                        }
                    })
                    .bind(any6).syncUninterruptibly().channel();
            try {
                assertTrue(listensIn("/proc/net/tcp6", port(server)), "port " + port(server) + " in the IPv6 socket table");
            } finally {
                server.close().syncUninterruptibly();
            }
        }
    }

    private static int port(Channel server) {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Whether a socket in LISTEN state (0A) has local port {@code port} in the kernel's table {@code file}. */
    private static boolean listensIn(String file, int port) throws IOException {
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        return Files.readAllLines(Path.of(file)).stream().skip(1)
                .map(line -> line.trim().split("\\s+"))
                .anyMatch(fields -> fields[1].endsWith(hexPort) && fields[3].equals("0A"));
    }
}
