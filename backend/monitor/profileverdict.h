// SPDX-License-Identifier: MIT
#pragma once

#include "autodetector.h"
#include "profile.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace gatehouse {

// An operator's verdict on what autodetection found, written to a profile
// file: accept a candidate (a rule for its family, so its instances are
// shown whatever their score) or reject a family (its keys are ordinary
// from then on). The one implementation behind `gatehouse-cli profile
// accept|reject` and the console's Unconfirmed page.
struct ProfileVerdict
{
    enum class Result {
        Written,     // the profile holds the verdict and was written to the file
        NothingToDo, // no such candidate (or it is shown already): nothing written
        Failed,      // the file could not be written
    };
    Result result = Result::Failed;
    QString message;  // what was done, or why not: one sentence naming the file
    Profile profile;  // as written (Written)
    QByteArray glob;  // the family's glob the verdict is about (Written)
    qint64 count = 0; // accept: the candidate's instances

    // Decides and writes: profile gains the verdict on target (a key, a
    // family as autodetection names it, or for reject a glob), judged against
    // what one discovery found (its candidates and shown objects, scannedKeys
    // for the message), and is written to file (QSaveFile). Blocks on disk:
    // never on the GUI thread.
    static ProfileVerdict apply(Profile profile, bool accept, const QByteArray &target,
                                const QString &file, const QList<Candidate> &candidates,
                                const QList<PatternObject> &shown, qint64 scannedKeys);
};

} // namespace gatehouse
