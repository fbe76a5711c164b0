package io.cachegate.gateway.exchange;

import java.util.ArrayList;
import java.util.List;

/** A fake rest of the chain: records every exchange a stage hands on, and does nothing with it. */
public final class RecordingNext implements Stage.Next {

    private final List<Exchange> proceeded = new ArrayList<>();

    @Override
    public void proceed(Exchange x) {
        proceeded.add(x);
    }

    /** How many times the stage handed an exchange on. */
    public int count() {
        return proceeded.size();
    }

    public boolean called() {
        return !proceeded.isEmpty();
    }

    /** The exchanges handed on, in order. */
    public List<Exchange> exchanges() {
        return List.copyOf(proceeded);
    }

    /** How many times {@code x} was handed on. */
    public long count(Exchange x) {
        return proceeded.stream().filter(p -> p == x).count();
    }
}
