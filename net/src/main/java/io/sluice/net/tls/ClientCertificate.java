package io.sluice.net.tls;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;

/**
 * Who a verified client certificate says the client is, for {@code peer_cert_as_username}: the
 * common name (CN) of the certificate's subject, the first if there are several. Stateless.
 */
public final class ClientCertificate {
    private ClientCertificate() {
    }

    /** The CN of the peer's certificate in {@code session}, or null if it sent none or its subject has no CN. */
    public static String commonName(SSLSession session) {
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x509 ? commonName(x509) : null;
        } catch (SSLPeerUnverifiedException e) {
            return null; // verify_peer without fail_if_no_peer_cert, and no certificate
        }
    }

    static String commonName(X509Certificate certificate) {
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return String.valueOf(rdn.getValue());
                }
            }
            return null;
        } catch (InvalidNameException e) {
            return null; // the JDK produced the name, so it parses; a CN-less subject is simply no user
        }
    }
}
