// SPDX-License-Identifier: MIT
#include "patternregistry.h"

namespace gatehouse {

const PatternRegistry &PatternRegistry::instance()
{
    static const PatternRegistry *s_registry = [] {
        auto *registry = new PatternRegistry;
        registerBuiltInPatterns(*registry);
        return registry;
    }();
    return *s_registry;
}

void PatternRegistry::add(std::unique_ptr<PatternUnit> unit)
{
    Q_ASSERT(!find(unit->kind()));
    const Section s = unit->section();
    if (!section(s.id))
        m_sections.append(s);
    for (const QByteArray &field : unit->shapeHashFields()) {
        if (!m_shapeHashFields.contains(field))
            m_shapeHashFields.append(field);
    }
    m_units.append(unit.get());
    m_owned.append(std::shared_ptr<const PatternUnit>(std::move(unit)));
}

const PatternUnit *PatternRegistry::find(PatternKind kind) const
{
    for (const PatternUnit *u : m_units) {
        if (u->kind() == kind)
            return u;
    }
    return nullptr;
}

const PatternUnit *PatternRegistry::find(const QString &id) const
{
    for (const PatternUnit *u : m_units) {
        if (u->kind().id() == id)
            return u;
    }
    return nullptr;
}

std::optional<Section> PatternRegistry::section(const QString &id) const
{
    for (const Section &s : m_sections) {
        if (s.id == id)
            return s;
    }
    return std::nullopt;
}

QList<const PatternUnit *> PatternRegistry::unitsIn(const QString &section) const
{
    QList<const PatternUnit *> units;
    for (const PatternUnit *u : m_units) {
        if (u->section().id == section)
            units.append(u);
    }
    return units;
}

QStringList PatternRegistry::ids() const
{
    QStringList ids;
    for (const PatternUnit *u : m_units)
        ids << u->kind().id();
    return ids;
}

std::optional<PatternKind> patternFromId(const QString &id)
{
    if (const PatternUnit *u = PatternRegistry::instance().find(id))
        return u->kind();
    return std::nullopt;
}

QList<PatternKind> allPatterns()
{
    QList<PatternKind> kinds;
    for (const PatternUnit *u : PatternRegistry::instance().units())
        kinds.append(u->kind());
    return kinds;
}

QString patternSection(PatternKind kind)
{
    const PatternUnit *u = PatternRegistry::instance().find(kind);
    return u ? u->section().id : QString();
}

int patternOrder(PatternKind kind)
{
    const auto &units = PatternRegistry::instance().units();
    for (qsizetype i = 0; i < units.size(); ++i) {
        if (units.at(i)->kind() == kind)
            return int(i);
    }
    return -1;
}

SectionColumns::SectionColumns(const QString &section)
{
    const QList<const PatternUnit *> units = PatternRegistry::instance().unitsIn(section);
    for (const PatternUnit *u : units) {
        for (const Column &c : u->columns()) {
            if (!m_headers.contains(c.header)) {
                m_headers << c.header;
                m_movesWithTime << c.movesWithTime;
            } else if (c.movesWithTime) {
                m_movesWithTime[m_headers.indexOf(c.header)] = true;
            }
        }
    }
    // The status column ends every table, whichever pattern added columns
    // after it.
    if (const qsizetype status = m_headers.indexOf(QStringLiteral("Status"));
        status >= 0 && status != m_headers.size() - 1) {
        m_headers.move(status, m_headers.size() - 1);
        m_movesWithTime.move(status, m_movesWithTime.size() - 1);
    }
    for (const PatternUnit *u : units) {
        QList<std::optional<Column>> columns(m_headers.size());
        for (const Column &c : u->columns())
            columns[m_headers.indexOf(c.header)] = c;
        m_columns.insert(u->kind(), columns);
    }
}

const Column *SectionColumns::column(int i, PatternKind kind) const
{
    const auto it = m_columns.constFind(kind);
    if (it == m_columns.cend() || i < 0 || i >= it->size() || !it->at(i))
        return nullptr;
    return &*it->at(i);
}

QString SectionColumns::text(int i, const ObjectState &s, qint64 nowMs) const
{
    const Column *c = column(i, s.object->kind);
    if (c && c->fromReading && s.reading.status == Reading::Status::Error)
        return QStringLiteral("–"); // no figure was read
    return c ? c->text(s, nowMs) : QString();
}

QVariant SectionColumns::sortValue(int i, const ObjectState &s, qint64 nowMs) const
{
    const Column *c = column(i, s.object->kind);
    return c ? c->sortValue(s, nowMs) : QVariant();
}

} // namespace gatehouse
