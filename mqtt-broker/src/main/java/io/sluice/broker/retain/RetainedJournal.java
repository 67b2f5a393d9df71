package io.sluice.broker.retain;

import io.sluice.broker.message.Message;

/**
 * Where the retained store reports changes that must survive a restart; implemented by the
 * state journal, or {@link #NONE}. Called with the store's write lock held, so changes arrive in
 * order; implementations must only enqueue, never block.
 */
public interface RetainedJournal {
    /** Keeps nothing. */
    RetainedJournal NONE = new RetainedJournal() {
        @Override
        public void stored(Message message) {
        }

        @Override
        public void removed(String topic) {
        }
    };

    /** {@code message} is now the retained message of its topic. */
    void stored(Message message);

    /** The topic has no retained message any more (deleted or expired). */
    void removed(String topic);
}
