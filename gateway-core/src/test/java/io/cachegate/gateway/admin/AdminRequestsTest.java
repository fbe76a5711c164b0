package io.cachegate.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cachegate.cache.exact.PurgeScope;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdminRequestsTest {

    @Test
    void purge_allNotABoolean_isRefusedNotCoerced() {
        // The probe's {"all": "true"} purged everything: Jackson's asBoolean reads the string "true" as true.
        assertThatThrownBy(() -> AdminRequests.purge("{\"all\": \"true\"}"))
                .hasMessage("'all' must be true or false (a JSON boolean), not a string");
        assertThatThrownBy(() -> AdminRequests.purge("{\"all\": 1}"))
                .hasMessage("'all' must be true or false (a JSON boolean), not a number");
        assertThatThrownBy(() -> AdminRequests.purge("{\"all\": null}"))
                .hasMessage("'all' must be true or false (a JSON boolean), not a null");
    }

    @Test
    void purge_allWithANarrowerField_isRefused() {
        assertThatThrownBy(() -> AdminRequests.purge("{\"all\": true, \"tenant\": \"acme\"}"))
                .hasMessage("'all' purges everything and takes no other field");
    }

    @Test
    void purge_repeatedField_isRefused() {
        assertThatThrownBy(() -> AdminRequests.purge("{\"all\": false, \"all\": true}"))
                .hasMessage("a field is given twice");
    }

    @Test
    void purge_wrongShapes_areRefusedWithTheirReason() {
        assertThatThrownBy(() -> AdminRequests.purge("")).hasMessage("the body must be a JSON object");
        assertThatThrownBy(() -> AdminRequests.purge("[]")).hasMessage("the body must be a JSON object");
        assertThatThrownBy(() -> AdminRequests.purge("{")).hasMessage("the body is not valid JSON");
        assertThatThrownBy(() -> AdminRequests.purge("{\"tenant\": 7}"))
                .hasMessage("'tenant' must be a non-empty string");
        assertThatThrownBy(() -> AdminRequests.purge("{\"everything\": true}"))
                .hasMessageStartingWith("unknown field 'everything'");
        assertThatThrownBy(() -> AdminRequests.purge("{\"all\": false}"))
                .hasMessage("a purge needs a tenant, a model_version, a tag, a user, or all");
    }

    @Test
    void purge_validBodies_giveTheirScope() {
        assertThat(AdminRequests.purge("{\"all\": true}")).isEqualTo(PurgeScope.everything());
        assertThat(AdminRequests.purge("{\"tenant\": \"acme\", \"tag\": \"doc:1\"}")).isEqualTo(new PurgeScope(
                false, Optional.of("acme"), Optional.empty(), Optional.of("doc:1")));
    }

    @Test
    void reload_takesNoParameters() {
        AdminRequests.reload("");
        AdminRequests.reload(" {} ");
        assertThatThrownBy(() -> AdminRequests.reload("{\"file\": \"/etc/passwd\"}"))
                .hasMessageStartingWith("unknown field 'file'; a reload takes no parameters");
        assertThatThrownBy(() -> AdminRequests.reload("true")).hasMessage("the body must be empty or {}");
    }
}
