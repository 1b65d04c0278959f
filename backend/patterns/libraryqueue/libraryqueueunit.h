// SPDX-License-Identifier: MIT
#pragma once

#include "libraryqueue.h"

#include <patterns/objecthealth.h>
#include <patterns/patternunit.h>

namespace gatehouse {

// The base of a job library's queue (BullMQ, Bull, Sidekiq, Celery, RQ): what
// every library queue shows the same way, so that a library's unit writes only
// what differs: its recognition (claims, grouping, rules), its reads (probe,
// read), its state names (states()), its stuck rule (stuckRule()) and its
// actions. From those the base gives the queue section, the jobs' states and
// stages, the shared table columns and JSON fields, the attention score and
// sentence and the item inputs of the in-flight jobs.
class LibraryQueueUnit : public PatternUnit
{
public:
    Section section() const override;
    // A library queue is named by its base or its queue's name, not one key.
    QByteArray keyType() const override { return {}; }

    QStringList jobStates() const override;
    JobStage jobStage(const QString &state) const override;
    // The JSON record, indented (libraryqueue::jsonDetail).
    JobRead recordDetail(const JobRow &row) const override;

    // libraryqueue::columns for library(), with columnOptions().
    QList<Column> columns() const override;
    // libraryqueue::writeJson of jsonKeys() with jsonOptions(), then
    // writeLibraryJson().
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    // Work at risk: 2 + the stuck count, with the stuck rule's figure.
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    // "<subject>: <n> <phrase>, <oldest> <age>" by the stuck rule.
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;

    // The judgement of a library's queues, registered by each library's
    // unit (`registerJudgement(Kind, LibraryQueueUnit::judgement())`): the
    // default states, and "no worker seen" (a warning) when jobs wait, the
    // queue is not paused and the library's record of its workers names
    // none alive. health() is what a library's own judgement refines.
    static ObjectHealth health(const ObjectState &state, qint64 nowMs);
    static QList<StateInfo> healthStates();
    static Judgement judgement();
    static const QString &noWorkerState(); // "no-worker"

protected:
    // A state of the library's jobs, by its own name, and the job browser's
    // tab it is in.
    struct JobState
    {
        QString name;
        JobStage stage = JobStage::Waiting;
    };
    // Its job states in the order the job browser lists them.
    virtual QList<JobState> states() const = 0;

    // When a job is stuck, in the library's words.
    struct StuckRule
    {
        QString figure; // the history figure the Overview's sparkline draws
        QString phrase; // after the count: "stalled (active without a lock)"
        QString oldest; // before the oldest in-flight age: "oldest active"; empty: not said
    };
    virtual StuckRule stuckRule() const = 0;
    // Who the attention sentence is about: the title and the object's name.
    virtual QString attentionSubject(const PatternObject &object) const;

    virtual libraryqueue::ColumnOptions columnOptions() const { return {}; }
    virtual libraryqueue::JsonOptions jsonOptions() const { return {}; }
    // The keys the JSON lists: the object's related keys.
    virtual QJsonArray jsonKeys(const PatternObject &object) const;
    // The library's own JSON fields, after the shared ones; none by default.
    virtual void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                                  QJsonObject &json) const;

    // Figures and charts every library queue has.
    static Figure countFigure(const QString &id, const QString &title, const QString &state);
    static Figure stuckFigure(const QString &title);
    static Figure oldestFigure(const QString &title);
    static Chart oldestChart(const QString &title);
};

} // namespace gatehouse
