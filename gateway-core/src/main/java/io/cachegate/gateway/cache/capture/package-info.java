/** Capture and write-back: the tap that assembles an answer and stores it (exact, then semantic) when storable. */
package io.cachegate.gateway.cache.capture;
