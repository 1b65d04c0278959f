// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/jobs.h>

#include <QList>
#include <QString>

#include <optional>

namespace gatehouse {

// What a job search looks for (JobSearch, `queue search`): terms that must
// all hold, written as the operator types them:
//
//   ETIMEDOUT                    the word anywhere: id, name, error, payload
//   error~timeout  name=SendMail the job's error (contains), its name (exactly)
//   id=1234  attempts>2          its id, its attempts so far
//   age>1h  age<10m              how long it has been in its state
//   data.customerId = 4411       a JSON path into the record or a payload
//   args.0~"gold plan"           (an array: any element; quotes keep spaces)
//
// Operators: = (equal: numbers by value), != , ~ (contains, any case),
// > >= < <= (numbers, ages). "and" between terms is allowed and implied.
// Matching is pure (no I/O): a page's rows are judged on a pool thread.
struct JobQuery
{
    struct Term
    {
        enum class Field { Any, Id, Name, Error, Age, Attempts, Path };
        enum class Op { Contains, Equal, NotEqual, Greater, GreaterEqual, Less, LessEqual };
        Field field = Field::Any;
        Op op = Op::Contains;
        QStringList path;             // Field::Path: its segments ("data", "customerId")
        QString value;                // as typed (unquoted)
        std::optional<double> number; // value as a number (an age in ms)
    };
    QList<Term> terms;
    QString text; // as parsed, for messages

    // The query, or nullopt with a sentence in *error saying what is wrong
    // where, and what to write instead.
    static std::optional<JobQuery> parse(const QString &expression, QString *error);

    // Whether a term needs the job's record (a path, a word to find anywhere).
    bool needsDetail() const;
    // Whether row may match by what a page lists (id, name, error, age,
    // attempts): false when a row-level term fails; terms needing the
    // record are not judged here.
    bool rowMayMatch(const JobRow &row, qint64 nowMs) const;
    // Whether row, with its record read (detail, payloads decoded), matches
    // every term. A record not read (detail.ok false) matches no term that
    // needs it.
    bool matches(const JobRow &row, const JobListing &detail, qint64 nowMs) const;
    // Whether the row alone settles every term (nothing needs the record,
    // or each word was found in what the page listed).
    bool rowSettles(const JobRow &row, qint64 nowMs) const;
};

} // namespace gatehouse
