package io.sluice.broker.transport;

import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;

import java.security.PrivateKey;

/** Encrypts a PKCS#8 key as {@code openssl pkcs8 -topk8 -v2 aes-256-cbc -v2prf hmacWithSHA256} does (PBES2). */
final class EncryptedKeys {
    private EncryptedKeys() {
    }

    static byte[] encrypt(PrivateKey key, String password) throws Exception {
        var encryptor = new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                .setPRF(PKCS8Generator.PRF_HMACSHA256)
                .setIterationCount(10_000)
                .setPassword(password.toCharArray())
                .setProvider(new BouncyCastleProvider()) // local to this call; nothing is registered
                .build();
        return new JcaPKCS8Generator(key, encryptor).generate().getContent();
    }
}
