// SPDX-License-Identifier: MIT
#pragma once

#include <QTextEdit>

namespace gatehouse {

// Read-only rich text as tall as its text at the width it is given (at most
// half the screen, then it scrolls), wrapped at word boundaries or, for a word
// longer than a line (a Redis key has no spaces), anywhere in it. Selected and
// copied as it is: nothing is added to make it wrap.
class WrappingText : public QTextEdit
{
    Q_OBJECT
public:
    explicit WrappingText(QWidget *parent = nullptr);

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override; // the same as sizeHint()

protected:
    void resizeEvent(QResizeEvent *event) override;
};

} // namespace gatehouse
