package io.cachegate.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The keys one YAML mapping allows: its own {@link Key}s and the sections nested in it. Its
 * {@link #names()} are the only keys the mapping may hold; anything else is reported as unknown. A section may
 * state a {@link ReloadRule} for the keys inside it that state none.
 */
final class Section {

    /** How the section's mappings appear under its name. */
    enum Shape {
        /** One mapping: {@code server: {...}}. */
        MAPPING,
        /** A list of mappings: {@code backends: [{...}, ...]}. */
        LIST,
        /** Mappings under names the user chooses: {@code classes: {interactive: {...}}}. */
        NAMED
    }

    private final String name;
    private final Shape shape;
    private final String doc;
    private final List<Key<?>> keys;
    private final List<Section> sections;
    private final ReloadRule reload;
    private final Set<String> names;

    private Section(String name, Shape shape, String doc, List<Key<?>> keys, List<Section> sections,
                    ReloadRule reload) {
        this.name = name;
        this.shape = shape;
        this.doc = doc;
        this.keys = List.copyOf(keys);
        this.sections = List.copyOf(sections);
        this.reload = reload;
        Set<String> all = new LinkedHashSet<>();
        keys.forEach(key -> all.add(key.name()));
        sections.forEach(section -> all.add(section.name()));
        this.names = Collections.unmodifiableSet(all);
    }

    static Section mapping(String name, String doc, Key<?>... keys) {
        return new Section(name, Shape.MAPPING, doc, List.of(keys), List.of(), null);
    }

    static Section list(String name, String doc, Key<?>... keys) {
        return new Section(name, Shape.LIST, doc, List.of(keys), List.of(), null);
    }

    static Section named(String name, String doc, Key<?>... keys) {
        return new Section(name, Shape.NAMED, doc, List.of(keys), List.of(), null);
    }

    /** This section with {@code nested} sections inside it. */
    Section with(Section... nested) {
        List<Section> all = new ArrayList<>(sections);
        Collections.addAll(all, nested);
        return new Section(name, shape, doc, keys, all, reload);
    }

    /** This section with reload rule {@code live} for its keys and nested sections that state none. */
    Section live() {
        return new Section(name, shape, doc, keys, sections, ReloadRule.LIVE);
    }

    /**
     * This section with reload rule {@code restart} for its keys and nested sections that state none; a reload
     * reports a change to any of them under this section's path.
     */
    Section restart() {
        return new Section(name, shape, doc, keys, sections, ReloadRule.RESTART);
    }

    String name() {
        return name;
    }

    Shape shape() {
        return shape;
    }

    String doc() {
        return doc;
    }

    List<Key<?>> keys() {
        return keys;
    }

    List<Section> sections() {
        return sections;
    }

    /** The rule this section states for what it holds, or null when it takes the rule of the section around it. */
    ReloadRule reload() {
        return reload;
    }

    /** The keys a mapping of this section may hold: its keys', then its nested sections' names. */
    Set<String> names() {
        return names;
    }
}
