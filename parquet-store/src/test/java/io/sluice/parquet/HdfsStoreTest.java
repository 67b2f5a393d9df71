package io.sluice.parquet;

import io.sluice.testing.Eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.stream.ColumnBatch;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store on a real HDFS (an in-process MiniDFSCluster with one data node). */
class HdfsStoreTest {

    @TempDir
    static Path base;

    private static MiniDFSCluster cluster;
    private static String uri;

    @BeforeAll
    static void startCluster() throws Exception {
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.toString());
        cluster = new MiniDFSCluster.Builder(conf, new File(base.toString())).numDataNodes(1).build();
        cluster.waitActive();
        uri = "hdfs://localhost:" + cluster.getNameNodePort();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.shutdown();
        }
    }

    private static ParquetSettings settings(String dir) {
        // Files published 200 ms after their first row, kept whatever their (2023) age.
        return ParquetSettings.defaults(uri + dir).withHadoop(Map.of("dfs.replication", "1"))
                .withFileRollInterval(java.time.Duration.ofMillis(200)).withRetention(java.time.Duration.ZERO);
    }

    @Test
    void writesRecoversScansAndRetainsOnHdfs() throws Exception {
        ParquetSettings settings = settings("/capture/a").withFileCount(2);
        TestBatches.Recorder recorder = new TestBatches.Recorder();
        ParquetStore store = ParquetStore.open("ex", settings, Map.of(), recorder);
        recorder.store = store;
        for (int i = 0; i < 3; i++) {
            store.enqueue(TestBatches.raw(i * 100L, 100));
            int expected = i + 1;
            Eventually.await(() -> recorder.publishedCount() == expected, () -> "file " + expected + " on hdfs");
        }
        store.close();
        assertTrue(recorder.published().get(0).location().startsWith(uri), recorder.published().get(0).location());

        FileSystem fs = cluster.getFileSystem();
        org.apache.hadoop.fs.Path leftover = new org.apache.hadoop.fs.Path("/capture/a/.sluice_ex_7.parquet.tmp");
        fs.create(leftover).close();
        TestBatches.Recorder second = new TestBatches.Recorder();
        try (ParquetStore reopened = ParquetStore.open("ex", settings, Map.of(), second)) {
            second.store = reopened;
            assertEquals(299, reopened.recovery().maxOffset());
            assertEquals(1, reopened.recovery().tempFilesRemoved());
            assertFalse(fs.exists(leftover));
            assertEquals(2, reopened.files().size(), "file_count 2 kept the two newest");
            long next = 100;
            try (StoreScan scan = reopened.scan(0, Long.MAX_VALUE, List.of())) {
                for (ColumnBatch chunk = scan.next(); chunk != null; chunk = scan.next()) {
                    for (int r = chunk.start(); r < chunk.end(); r++) {
                        assertEquals(next, chunk.longs("offset").get(r));
                        assertEquals(TestBatches.topicOf(next), chunk.strings("topic").get(r));
                        assertArrayEquals(TestBatches.payloadOf(next), chunk.binaries("data").get(r));
                        next++;
                    }
                }
            }
            assertEquals(300, next);
        }
        assertEquals(2, fs.listStatus(new org.apache.hadoop.fs.Path("/capture/a")).length);
    }
}
