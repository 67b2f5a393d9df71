package io.sluice.ringbus;

import java.util.ArrayList;
import java.util.List;

/** A sink with a controllable number of free places that records every transition. */
final class RecordingSink implements BatchSink {

    private int room;
    final List<Batch> handedOff = new ArrayList<>();
    final List<Batch> dropped = new ArrayList<>();
    final List<SpilledBatch> spilled = new ArrayList<>();
    final List<Batch> logged = new ArrayList<>();
    volatile Batch active;

    RecordingSink(int room) {
        this.room = room;
    }

    synchronized void addRoom(int places) {
        room += places;
        notifyAll();
    }

    synchronized List<Batch> handedOff() {
        return new ArrayList<>(handedOff);
    }

    synchronized int handedOffRows() {
        return handedOff.stream().mapToInt(Batch::size).sum();
    }

    @Override
    public synchronized void started(Batch first) {
        active = first;
    }

    @Override
    public synchronized boolean tryHandOff(Batch sealed, Batch next) {
        if (room == 0) {
            return false;
        }
        room--;
        handedOff.add(sealed);
        active = next;
        return true;
    }

    @Override
    public synchronized void handOff(Batch sealed, Batch next) {
        while (room == 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        room--;
        handedOff.add(sealed);
        active = next;
    }

    @Override
    public synchronized void spilled(SpilledBatch file, Batch sealed, Batch next) {
        spilled.add(file);
        active = next;
    }

    @Override
    public synchronized void logged(Batch sealed, Batch next) {
        logged.add(sealed);
        active = next;
    }

    synchronized List<Batch> logged() {
        return new ArrayList<>(logged);
    }

    @Override
    public synchronized void dropped(Batch sealed, Batch next) {
        dropped.add(sealed);
        active = next;
    }
}
