package io.sluice.broker.security;

import io.sluice.net.auth.ClientIdentity;
import io.sluice.net.auth.InvalidFileException;
import io.sluice.net.auth.PasswordFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AclTest {
    @TempDir
    Path dir;

    private static ClientIdentity client(String clientId, String username, String ip) {
        return new ClientIdentity(clientId, username, new InetSocketAddress(ip, 40000));
    }

    private AclAuthorizer acl(String rules, String noMatch) throws Exception {
        Path file = dir.resolve("acl.conf");
        Files.writeString(file, "rules = [\n" + rules + "\n]\n");
        return new AclAuthorizer(noMatch.equals("allow"), Authorizer.DenyAction.IGNORE, file);
    }

    @Test
    void placeholdersStandForTheClientsOwnNameAndId() throws Exception {
        AclAuthorizer acl = acl("""
                { permit = allow, action = publish, topics = ["users/%u/#", "devices/${clientid}/+"] }
                { permit = allow, action = subscribe, topics = ["inbox/%c"] }
                """, "deny");
        ClientIdentity alice = client("meter-1", "alice", "127.0.0.1");

        assertTrue(acl.mayPublish(alice, "users/alice/temp"));
        assertTrue(acl.mayPublish(alice, "users/alice"), "# also matches the parent level");
        assertFalse(acl.mayPublish(alice, "users/bob/temp"));
        assertTrue(acl.mayPublish(alice, "devices/meter-1/state"));
        assertFalse(acl.mayPublish(alice, "devices/meter-2/state"));
        assertFalse(acl.mayPublish(alice, "devices/meter-1/state/deep"));
        assertTrue(acl.maySubscribe(alice, "inbox/meter-1"));
        assertFalse(acl.maySubscribe(alice, "inbox/+"), "a wildcard is wider than the client's own id");
        assertFalse(acl.mayPublish(alice, "inbox/meter-1"), "a subscribe rule does not allow publishing");
    }

    @Test
    void aNameWithWildcardsOrNoNameNeverWidensAnAllowRule() throws Exception {
        AclAuthorizer acl = acl("{ permit = allow, topics = [\"users/%u/#\"] }", "deny");

        assertFalse(acl.mayPublish(client("c", "+", "127.0.0.1"), "users/bob/x"));
        assertFalse(acl.maySubscribe(client("c", "#", "127.0.0.1"), "users/#"));
        assertFalse(acl.mayPublish(client("c", "a/b", "127.0.0.1"), "users/a/b/x"));
        assertFalse(acl.mayPublish(client("c", null, "127.0.0.1"), "users//x"), "anonymous has no %u");
    }

    @Test
    void aDenyRuleWithAPlaceholderStillDeniesWhenTheNameIsUnusable() throws Exception {
        AclAuthorizer acl = acl("""
                { permit = deny, topics = ["private/%u/#"] }
                { permit = allow }
                """, "deny");

        assertFalse(acl.mayPublish(client("c", null, "127.0.0.1"), "private/anyone/x"));
        assertTrue(acl.mayPublish(client("c", "bob", "127.0.0.1"), "private/alice/x"));
        assertFalse(acl.mayPublish(client("c", "bob", "127.0.0.1"), "private/bob/x"));
    }

    @Test
    void theFirstRuleThatAppliesDecidesAndNoMatchDecidesTheRest() throws Exception {
        String rules = """
                { permit = deny, username = "guest", action = publish, topics = ["#"] }
                { permit = allow, action = publish, topics = ["public/#"] }
                """;
        AclAuthorizer denyByDefault = acl(rules, "deny");
        AclAuthorizer allowByDefault = acl(rules, "allow");
        ClientIdentity guest = client("g", "guest", "127.0.0.1");
        ClientIdentity user = client("u", "user", "127.0.0.1");

        assertFalse(denyByDefault.mayPublish(guest, "public/news"));
        assertTrue(denyByDefault.mayPublish(user, "public/news"));
        assertFalse(denyByDefault.mayPublish(user, "other"));
        assertTrue(allowByDefault.mayPublish(user, "other"));
        assertTrue(allowByDefault.maySubscribe(guest, "public/news"), "publish rules leave subscribe to no_match");
    }

    @Test
    void aWideSubscriptionNeverSlipsPastANarrowerDeny() throws Exception {
        AclAuthorizer acl = acl("""
                { permit = deny, action = subscribe, topics = ["secret/#", "eq #"] }
                { permit = allow, action = subscribe, topics = ["#"] }
                """, "deny");
        ClientIdentity anyone = client("c", "u", "127.0.0.1");

        assertFalse(acl.maySubscribe(anyone, "#"), "overlaps secret/# (and is literally #)");
        assertFalse(acl.maySubscribe(anyone, "+/keys"), "+/keys can match secret/keys");
        assertFalse(acl.maySubscribe(anyone, "secret"), "secret/# matches its parent");
        assertTrue(acl.maySubscribe(anyone, "public/+/x"));
        assertTrue(acl.maySubscribe(anyone, "secretive/x"));
        assertFalse(acl.maySubscribe(anyone, "$SYS/#"), "# does not cover $ topics, so no rule allows it");
    }

    @Test
    void subjectsMatchByUserClientIdAddressAndCombinations() throws Exception {
        AclAuthorizer acl = acl("""
                { permit = allow, ipaddr = "10.1.0.0/16", topics = ["lan/#"] }
                { permit = allow, ipaddr = "fd00::/8", topics = ["v6/#"] }
                { permit = allow, clientid = "gw-1", topics = ["gw/#"] }
                { permit = allow, and = [ { username = "ops" }, { ipaddr = "127.0.0.1" } ], topics = ["ops/#"] }
                { permit = allow, or = [ { username = "a" }, { clientid = "b" } ], topics = ["shared/#"] }
                { permit = allow, username = "#", topics = ["any-user/#"] }
                """, "deny");

        assertTrue(acl.mayPublish(client("x", null, "10.1.200.3"), "lan/a"));
        assertFalse(acl.mayPublish(client("x", null, "10.2.0.1"), "lan/a"));
        assertTrue(acl.mayPublish(client("x", null, "fd12::1"), "v6/a"));
        assertFalse(acl.mayPublish(client("x", null, "fe80::1"), "v6/a"));
        assertTrue(acl.mayPublish(client("gw-1", null, "127.0.0.1"), "gw/x"));
        assertTrue(acl.mayPublish(client("x", "ops", "127.0.0.1"), "ops/x"));
        assertFalse(acl.mayPublish(client("x", "ops", "10.1.0.1"), "ops/x"));
        assertTrue(acl.mayPublish(client("b", null, "127.0.0.1"), "shared/x"));
        assertTrue(acl.mayPublish(client("x", "a", "127.0.0.1"), "shared/x"));
        assertTrue(acl.mayPublish(client("x", "anyone", "127.0.0.1"), "any-user/x"));
    }

    @Test
    void nanoMqsOwnExampleFileLoadsUnchanged() throws Exception {
        AclAuthorizer acl = acl("""
                {"permit": "allow", "username": "dashboard", "action": "subscribe", "topics": ["$SYS/#"]}
                {"permit": "deny", "username": "#", "action": "subscribe", "topics": ["$SYS/#", "#"]}
                {"permit": "allow"}
                """, "allow");

        assertTrue(acl.maySubscribe(client("d", "dashboard", "127.0.0.1"), "$SYS/broker/uptime"));
        assertFalse(acl.maySubscribe(client("u", "user", "127.0.0.1"), "$SYS/#"));
        assertFalse(acl.maySubscribe(client("u", "user", "127.0.0.1"), "a/b"));
        assertTrue(acl.mayPublish(client("u", "user", "127.0.0.1"), "a/b"));
    }

    @Test
    void theShippedExamplesParse() throws Exception {
        AclAuthorizer acl = new AclAuthorizer(false, Authorizer.DenyAction.IGNORE,
                Path.of("..", "conf", "examples", "acl.hocon"));
        assertTrue(acl.mayPublish(client("meter-7", null, "10.0.0.1"), "devices/meter-7/telemetry"));
        assertFalse(acl.maySubscribe(client("meter-7", null, "10.0.0.1"), "#"));
        assertTrue(PasswordFile.read(Path.of("..", "conf", "examples", "passwd")).isEmpty());
    }

    @Test
    void everyMistakeInTheFileIsReportedWithItsLine() throws Exception {
        assertLine("{ permit = maybe }", 2, "permit");
        assertLine("{ permit = allow, action = read }", 2, "action");
        assertLine("{ permit = allow,\n  topcs = [\"a\"] }", 3, "topcs");
        assertLine("{ permit = allow, topics = [\"a/#/b\"] }", 2, "a/#/b");
        assertLine("{ permit = allow, ipaddr = \"10.0.0.0/33\" }", 2, "prefix");
        assertLine("{ permit = allow, ipaddr = \"gateway.local\" }", 2, "ipaddr");
        assertLine("{ permit = allow, username = \"a\", clientid = \"b\" }", 2, "at most one");
        Path file = dir.resolve("broken.conf");
        Files.writeString(file, "rules = [ { permit = allow ]");
        assertThrows(InvalidFileException.class, () -> AclFile.read(file));
    }

    private void assertLine(String rule, int line, String mention) throws Exception {
        Path file = dir.resolve("acl-" + line + "-" + mention.hashCode() + ".conf");
        Files.writeString(file, "rules = [\n" + rule + "\n]\n");
        InvalidFileException e = assertThrows(InvalidFileException.class, () -> AclFile.read(file));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains(mention), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }
}
