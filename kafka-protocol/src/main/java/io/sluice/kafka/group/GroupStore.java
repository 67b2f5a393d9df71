package io.sluice.kafka.group;

import java.util.Map;

/**
 * Where the coordinator keeps each group's last settled state ({@link GroupRecord}, encoded), so that
 * a group survives a restart of the server: durable before {@link #save} returns.
 */
public interface GroupStore {
    /** Keeps nothing: groups start empty after a restart. */
    GroupStore NONE = new GroupStore() {
        @Override
        public Map<String, byte[]> load() {
            return Map.of();
        }

        @Override
        public void save(String groupId, byte[] state) {
        }
    };

    /** Every group's saved state, by group id. */
    Map<String, byte[]> load();

    /** Saves {@code groupId}'s state durably, replacing what was saved before. */
    void save(String groupId, byte[] state);
}
