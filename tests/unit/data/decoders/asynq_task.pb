
email:deliver{"user_id": 4411}f0a1-fixture"default(@ˆ