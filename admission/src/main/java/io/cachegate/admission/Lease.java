package io.cachegate.admission;

/** A reservation of backend capacity, held from dispatch until the request has finished. */
public interface Lease {

    /** The tokens this lease reserves (prompt estimate plus max_tokens). */
    long tokens();

    /** Gives the capacity back. Idempotent: only the first call counts. */
    void release();
}
