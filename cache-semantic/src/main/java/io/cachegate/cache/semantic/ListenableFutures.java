package io.cachegate.cache.semantic;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import java.util.concurrent.CompletableFuture;

/** Bridges the Qdrant client's Guava futures to {@link CompletableFuture} without ever waiting on one. */
final class ListenableFutures {

    private ListenableFutures() {
    }

    /** Completes on the thread that completes {@code source} (a gRPC thread); cancelling the result cancels the call. */
    static <T> CompletableFuture<T> toCompletable(ListenableFuture<T> source) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Futures.addCallback(source, new FutureCallback<T>() {
            @Override
            public void onSuccess(T value) {
                result.complete(value);
            }

            @Override
            public void onFailure(Throwable failure) {
                result.completeExceptionally(failure);
            }
        }, MoreExecutors.directExecutor());
        result.whenComplete((v, t) -> {
            if (result.isCancelled()) {
                source.cancel(true);
            }
        });
        return result;
    }
}
