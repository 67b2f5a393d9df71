package io.sluice.broker.security;

import io.sluice.net.auth.ClientIdentity;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Whom an ACL rule applies to: everyone, a user name, a client id, an IP address or network
 * (CIDR), or a combination with {@code and} / {@code or}. {@code "#"} as a user name or client id
 * means any (NanoMQ's convention); a client without a user name matches no user name but {@code "#"}.
 */
public sealed interface AclSubject {
    /** Whether the rule applies to {@code client}. */
    boolean matches(ClientIdentity client);

    /** Every client. */
    record Everyone() implements AclSubject {
        @Override
        public boolean matches(ClientIdentity client) {
            return true;
        }
    }

    /** Clients with this user name ({@code "#"}: any client). */
    record Username(String name) implements AclSubject {
        @Override
        public boolean matches(ClientIdentity client) {
            return name.equals("#") || name.equals(client.username());
        }
    }

    /** The client with this id ({@code "#"}: any client). */
    record ClientId(String id) implements AclSubject {
        @Override
        public boolean matches(ClientIdentity client) {
            return id.equals("#") || id.equals(client.clientId());
        }
    }

    /** Clients connecting from an address in {@code network}/{@code prefixLength}. */
    record IpAddress(InetAddress network, int prefixLength) implements AclSubject {
        private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

        /** Parses {@code "10.0.0.5"}, {@code "10.0.0.0/8"} or {@code "fd00::/8"}; literal addresses only. */
        public static IpAddress parse(String text) {
            int slash = text.indexOf('/');
            String host = slash < 0 ? text : text.substring(0, slash);
            if (!IPV4.matcher(host).matches() && host.indexOf(':') < 0) {
                throw new IllegalArgumentException("ipaddr must be an IP address or CIDR network, got '" + text + "'");
            }
            InetAddress address;
            try {
                address = InetAddress.getByName(host); // a literal: no name lookup happens
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("ipaddr '" + text + "' is not an IP address", e);
            }
            int bits = address.getAddress().length * 8;
            int prefix = bits;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(text.substring(slash + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad prefix length in ipaddr '" + text + "'", e);
                }
                if (prefix < 0 || prefix > bits) {
                    throw new IllegalArgumentException("prefix length in ipaddr '" + text + "' must be 0.." + bits);
                }
            }
            return new IpAddress(address, prefix);
        }

        @Override
        public boolean matches(ClientIdentity client) {
            if (!(client.address() instanceof InetSocketAddress socket) || socket.getAddress() == null) {
                return false;
            }
            byte[] candidate = socket.getAddress().getAddress();
            byte[] net = network.getAddress();
            if (candidate.length != net.length) {
                return false;
            }
            int full = prefixLength / 8;
            for (int i = 0; i < full; i++) {
                if (candidate[i] != net[i]) {
                    return false;
                }
            }
            int rest = prefixLength % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (candidate[full] & mask) == (net[full] & mask);
        }
    }

    /** All of {@code parts}. */
    record All(List<AclSubject> parts) implements AclSubject {
        @Override
        public boolean matches(ClientIdentity client) {
            for (AclSubject part : parts) {
                if (!part.matches(client)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Any of {@code parts}. */
    record Any(List<AclSubject> parts) implements AclSubject {
        @Override
        public boolean matches(ClientIdentity client) {
            for (AclSubject part : parts) {
                if (part.matches(client)) {
                    return true;
                }
            }
            return false;
        }
    }
}
